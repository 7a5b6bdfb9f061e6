from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'index.html'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    parent_template = None
    pass
    parent_template = environment.get_template('base.html', 'index.html')
    for name, parent_block in parent_template.blocks.items():
        context.blocks.setdefault(name, []).append(parent_block)
    yield from parent_template.root_render_func(context)

def block_title(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_site_title = resolve('site_title')
    pass
    yield escape((undefined(name='site_title') if l_0_site_title is missing else l_0_site_title))
    yield ' · run summary'

def block_body_class(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass
    yield 'index-page'

def block_actions(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass
    yield '<button type="button" id="b-help" class="help-btn" aria-haspopup="dialog" aria-label="keyboard shortcuts" title="keyboard shortcuts (?)">?</button>'

def block_head(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_charts = resolve('charts')
    l_0_root = resolve('root')
    try:
        t_1 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    pass
    if (t_1((undefined(name='charts') if l_0_charts is missing else l_0_charts)) and environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'enabled')):
        pass
        yield '\n<link rel="stylesheet" href="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield 'assets/charts.css">\n'

def block_main(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_title = resolve('title')
    l_0_run = resolve('run')
    l_0_model_name = resolve('model_name')
    l_0_visible_segments = resolve('visible_segments')
    l_0_header = resolve('header')
    l_0_n_iterations = resolve('n_iterations')
    l_0_n_texts = resolve('n_texts')
    l_0_n_rollouts = resolve('n_rollouts')
    l_0_run_log = resolve('run_log')
    l_0_charts = resolve('charts')
    l_0_root = resolve('root')
    l_0_long_table = resolve('long_table')
    l_0_columns = resolve('columns')
    l_0_rows_html = resolve('rows_html')
    l_0_evals = resolve('evals')
    l_0_unstepped = resolve('unstepped')
    l_0_config_json = resolve('config_json')
    l_0_n_diff = resolve('n_diff')
    l_0_trace = resolve('trace')
    l_0_word = missing
    try:
        t_2 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_3 = environment.filters['linecount']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'linecount' found.")
    try:
        t_4 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_5 = environment.filters['map']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'map' found.")
    try:
        t_6 = environment.filters['thousands']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'thousands' found.")
    try:
        t_7 = environment.filters['tojson_text']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'tojson_text' found.")
    try:
        t_8 = environment.filters['unique']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No filter named 'unique' found.")
    try:
        t_9 = environment.filters['value_text']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No filter named 'value_text' found.")
    try:
        t_1 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    try:
        t_10 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '\n<section class="run-head">\n  <h1>'
    yield escape((undefined(name='title') if l_0_title is missing else l_0_title))
    yield '</h1>\n  <dl class="facts-grid">\n    <div><dt>format</dt><dd>'
    yield escape(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format'))
    yield '</dd></div>\n    '
    if environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'algorithm'):
        pass
        yield '<div><dt>'
        yield escape(('algorithm' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'loss'))
        yield '</dt><dd>'
        yield escape(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'algorithm'))
        yield '</dd></div>'
    yield '\n    '
    if environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'model'):
        pass
        yield '<div><dt>model</dt><dd title="'
        yield escape(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'model'))
        yield '">'
        yield escape((undefined(name='model_name') if l_0_model_name is missing else l_0_model_name))
        yield '</dd></div>'
    yield '\n    '
    if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe'):
        pass
        yield '\n    <div><dt>segments</dt><dd>'
        yield escape(t_2(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'segments')))
        if (t_2((undefined(name='visible_segments') if l_0_visible_segments is missing else l_0_visible_segments)) != t_2(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'segments'))):
            pass
            yield ' ('
            yield escape(t_2((undefined(name='visible_segments') if l_0_visible_segments is missing else l_0_visible_segments)))
            yield ' visible)'
        yield '</dd></div>\n    <div><dt>texts</dt><dd>'
        if environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'every'):
            pass
            yield 'every '
            yield escape(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'every'))
            yield ' update'
            yield escape(('' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'every') == 1) else 's'))
        else:
            pass
            yield 'where exported'
        if (t_2(t_4(context.eval_ctx, t_8(environment, t_5(context, (undefined(name='visible_segments') if l_0_visible_segments is missing else l_0_visible_segments), attribute='every')))) > 1):
            pass
            yield " (the latest segment's; each segment's below)"
        yield '</dd></div>\n    <div><dt>updates</dt><dd>'
        yield escape(t_6(t_2(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'iterations'))))
        yield '</dd></div>\n    '
    else:
        pass
        yield '\n    '
        for (l_1_k, l_1_v) in context.call(environment.getattr((undefined(name='header') if l_0_header is missing else l_0_header), 'items'), _block_vars=_block_vars):
            _loop_vars = {}
            pass
            yield '<div><dt>'
            yield escape(l_1_k)
            yield '</dt><dd>'
            yield escape(l_1_v)
            yield '</dd></div>'
        l_1_k = l_1_v = missing
        yield '\n    <div><dt>iterations</dt><dd>'
        yield escape(t_6((undefined(name='n_iterations') if l_0_n_iterations is missing else l_0_n_iterations)))
        if ((undefined(name='n_iterations') if l_0_n_iterations is missing else l_0_n_iterations) != t_2(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'iterations'))):
            pass
            yield ' <span class="subtle" title="steps of metrics.jsonl without a training row: the final evaluation and the totals">+ '
            yield escape((t_2(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'iterations')) - (undefined(name='n_iterations') if l_0_n_iterations is missing else l_0_n_iterations)))
            yield ' final</span>'
        yield '</dd></div>\n    '
    yield '\n    <div><dt>with texts</dt><dd>'
    yield escape(t_6((undefined(name='n_texts') if l_0_n_texts is missing else l_0_n_texts)))
    yield '</dd></div>\n    '
    if (undefined(name='n_rollouts') if l_0_n_rollouts is missing else l_0_n_rollouts):
        pass
        yield '<div><dt>rollouts</dt><dd>'
        yield escape(t_6((undefined(name='n_rollouts') if l_0_n_rollouts is missing else l_0_n_rollouts)))
        yield '</dd></div>'
    yield '\n  </dl>\n  '
    if (undefined(name='run_log') if l_0_run_log is missing else l_0_run_log):
        pass
        yield '<p class="runlog"><a href="'
        yield escape(environment.getattr((undefined(name='run_log') if l_0_run_log is missing else l_0_run_log), 'href'))
        yield '">logs.log</a> ('
        yield escape(environment.getattr((undefined(name='run_log') if l_0_run_log is missing else l_0_run_log), 'counts'))
        yield ')'
        if environment.getattr((undefined(name='run_log') if l_0_run_log is missing else l_0_run_log), 'first_error'):
            pass
            yield '; <a href="'
            yield escape(environment.getattr((undefined(name='run_log') if l_0_run_log is missing else l_0_run_log), 'href'))
            yield '#L'
            yield escape(environment.getattr((undefined(name='run_log') if l_0_run_log is missing else l_0_run_log), 'first_error'))
            yield '">first error</a> (line '
            yield escape(t_6(environment.getattr((undefined(name='run_log') if l_0_run_log is missing else l_0_run_log), 'first_error')))
            yield '): <code class="lerr">'
            yield escape(environment.getattr((undefined(name='run_log') if l_0_run_log is missing else l_0_run_log), 'error_text'))
            yield '</code>'
        yield '</p>'
    yield '\n  '
    if environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'params'):
        pass
        yield '\n  \n  <p class="params-title" id="params-title">parameters'
        if (t_2(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'segments')) > 1):
            pass
            yield ' (run record of the latest visible segment)'
        else:
            pass
            yield ' (run record)'
        yield '</p>\n  <dl class="facts-grid params" aria-labelledby="params-title">\n    '
        for (l_1_k, l_1_v) in context.call(environment.getattr(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'params'), 'items'), _block_vars=_block_vars):
            _loop_vars = {}
            pass
            yield '<div><dt>'
            yield escape(l_1_k)
            yield '</dt><dd>'
            yield escape(t_9(l_1_v))
            yield '</dd></div>'
        l_1_k = l_1_v = missing
        yield '\n  </dl>\n  '
    yield '\n  '
    if environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'warnings'):
        pass
        yield '\n  <div class="warnings" role="status">\n    <h2>Warnings</h2>\n    <ul>'
        for l_1_w in environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'warnings'):
            _loop_vars = {}
            pass
            yield '<li>'
            yield escape(l_1_w)
            yield '</li>'
        l_1_w = missing
        yield '</ul>\n  </div>\n  '
    yield '\n</section>\n\n<section id="charts" class="charts" aria-label="Charts">'
    yield from context.blocks['charts'][0](context)
    yield '</section>\n'
    if (t_1((undefined(name='charts') if l_0_charts is missing else l_0_charts)) and environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'enabled')):
        pass
        yield '<script src="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield 'assets/vendor/vega.min.js"></script>\n<script src="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield 'assets/vendor/vega-lite.min.js"></script>\n<script src="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield 'assets/vendor/vega-interpreter.min.js"></script>\n<script src="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'data_file'))
        yield '"></script>\n<script src="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield 'assets/charts.js"></script>\n'
    yield '\n\n'
    if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'segments') and (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe')):
        pass
        yield '\n<section class="segments">\n  <h2>Segments</h2>\n  <div class="table-wrap" tabindex="0" role="region" aria-label="Segments">\n  <table class="data">\n    <thead><tr><th>segment</th><th>algorithm</th><th>model</th><th>start</th><th>texts every</th><th>started at</th><th>visible</th></tr></thead>\n    <tbody>\n    '
        for l_1_s in environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'segments'):
            _loop_vars = {}
            pass
            yield '\n    <tr class="'
            yield escape(('' if environment.getattr(l_1_s, 'visible') else 'hidden-seg'))
            yield '"><td>'
            yield escape(environment.getattr(l_1_s, 'segment'))
            yield '</td><td>'
            yield escape((environment.getattr(l_1_s, 'algorithm') or '–'))
            yield '</td><td>'
            yield escape((environment.getattr(l_1_s, 'model') or '–'))
            yield '</td>\n    <td>'
            if (not t_10(environment.getattr(l_1_s, 'resumed_from_update'))):
                pass
                yield 'resumed from update '
                yield escape(environment.getattr(l_1_s, 'resumed_from_update'))
            else:
                pass
                yield 'fresh'
            yield '</td>\n    <td>'
            yield escape((environment.getattr(l_1_s, 'every') or '–'))
            yield '</td><td>'
            if environment.getattr(l_1_s, 'time'):
                pass
                yield '<time datetime="'
                yield escape(environment.getattr(l_1_s, 'time'))
                yield '">'
                yield escape(environment.getattr(l_1_s, 'time'))
                yield '</time>'
            else:
                pass
                yield '–'
            yield '</td>\n    <td>'
            if (not environment.getattr(l_1_s, 'visible')):
                pass
                yield 'hidden by a later fresh run'
            elif (not t_10(environment.getattr(l_1_s, 'upto'))):
                pass
                yield 'updates up to '
                yield escape(environment.getattr(l_1_s, 'upto'))
            else:
                pass
                yield 'yes'
            yield '</td></tr>\n    '
        l_1_s = missing
        yield '\n    </tbody>\n  </table>\n  </div>\n</section>\n'
    yield '\n\n<section class="iterations'
    if (undefined(name='long_table') if l_0_long_table is missing else l_0_long_table):
        pass
        yield ' long'
    yield '">\n  <h2>'
    yield escape(('Updates' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'Iterations'))
    yield '</h2>\n  <div class="table-wrap" tabindex="0" role="region" aria-label="'
    yield escape(('Updates' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'Iterations'))
    yield '">\n  <table class="data" id="iterations">\n    <thead><tr><th>'
    yield escape(('update' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'step'))
    yield '</th>'
    if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe'):
        pass
        yield '<th>segment</th>'
    yield '<th>status</th>\n    '
    for l_1_c in (undefined(name='columns') if l_0_columns is missing else l_0_columns):
        _loop_vars = {}
        pass
        yield '<th title="'
        yield escape(l_1_c)
        yield '">'
        yield escape(l_1_c)
        yield '</th>'
    l_1_c = missing
    yield '<th>texts</th></tr></thead>\n    <tbody>\n    '
    yield escape((undefined(name='rows_html') if l_0_rows_html is missing else l_0_rows_html))
    yield '\n    </tbody>\n  </table>\n  </div>\n</section>\n\n'
    for l_1_ev in (undefined(name='evals') if l_0_evals is missing else l_0_evals):
        l_1_unnamed = resolve('unnamed')
        _loop_vars = {}
        pass
        yield '\n<section class="evals" id="evaluator-'
        yield escape(environment.getattr(l_1_ev, 'anchor'))
        yield '">\n  <h2>Evaluator <code>'
        yield escape((environment.getattr(l_1_ev, 'label') or (undefined(name='unnamed') if l_1_unnamed is missing else l_1_unnamed)))
        yield '</code>'
        if (environment.getattr(l_1_ev, 'prefix') and (environment.getattr(l_1_ev, 'prefix') != environment.getattr(l_1_ev, 'label'))):
            pass
            yield ' <span class="subtle">(metrics <code>'
            yield escape(environment.getattr(l_1_ev, 'prefix'))
            yield '/…</code>)</span>'
        yield '</h2>\n  <div class="table-wrap" tabindex="0" role="region" aria-label="Evaluator '
        yield escape((environment.getattr(l_1_ev, 'label') or (undefined(name='unnamed') if l_1_unnamed is missing else l_1_unnamed)))
        yield '">\n  <table class="data">\n    <thead><tr><th>step</th>'
        for l_2_c in environment.getattr(l_1_ev, 'columns'):
            _loop_vars = {}
            pass
            yield '<th>'
            yield escape(l_2_c)
            yield '</th>'
        l_2_c = missing
        yield '<th>page</th></tr></thead>\n    <tbody>\n    '
        for (l_2_n, l_2_page, l_2_vals) in environment.getattr(l_1_ev, 'rows'):
            _loop_vars = {}
            pass
            yield '\n    <tr id="ev-'
            yield escape(environment.getattr(l_1_ev, 'anchor'))
            yield '-'
            yield escape(l_2_n)
            yield '"><td>'
            yield escape(l_2_n)
            yield '</td>'
            for l_3_v in l_2_vals:
                l_3_fmt = resolve('fmt')
                _loop_vars = {}
                pass
                yield '<td class="num">'
                yield escape(context.call((undefined(name='fmt') if l_3_fmt is missing else l_3_fmt), l_3_v, _loop_vars=_loop_vars))
                yield '</td>'
            l_3_v = l_3_fmt = missing
            yield '<td>'
            if l_2_page:
                pass
                yield '<a href="'
                yield escape(l_2_page)
                yield '" title="'
                yield escape(l_2_page)
                yield '">texts</a>'
            else:
                pass
                yield '<span class="subtle">metrics only</span>'
            yield '</td></tr>\n    '
        l_2_n = l_2_page = l_2_vals = missing
        yield '\n    </tbody>\n  </table>\n  </div>\n</section>\n'
    l_1_ev = l_1_unnamed = missing
    yield '\n\n'
    if environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'checkpoints'):
        pass
        yield '\n<section class="checkpoints">\n  <h2>Checkpoints</h2>\n  <div class="table-wrap" tabindex="0" role="region" aria-label="Checkpoints">\n  <table class="data">\n    <thead><tr><th>name</th><th>batch</th><th>kind</th><th>state_path</th><th>sampler_path</th><th>tokens</th></tr></thead>\n    <tbody>\n    '
        for l_1_c in environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'checkpoints'):
            _loop_vars = {}
            pass
            yield '\n    <tr><td>'
            yield escape(environment.getattr(l_1_c, 'name'))
            yield '</td><td>'
            yield escape((environment.getattr(l_1_c, 'batch') if (not t_10(environment.getattr(l_1_c, 'batch'))) else '–'))
            yield '</td><td>'
            yield escape(('final' if environment.getattr(l_1_c, 'final') else ('rolling' if environment.getattr(l_1_c, 'rolling') else ('initial' if (environment.getattr(l_1_c, 'batch') == 0) else 'periodic'))))
            yield '</td>\n    <td><code>'
            yield escape((environment.getattr(l_1_c, 'state_path') or '–'))
            yield '</code></td><td><code>'
            yield escape((environment.getattr(l_1_c, 'sampler_path') or '–'))
            yield '</code></td>\n    <td>'
            for (l_2_k, l_2_v) in context.call(environment.getattr(environment.getattr(l_1_c, 'extra'), 'items'), _loop_vars=_loop_vars):
                _loop_vars = {}
                pass
                yield '<div class="kv"><span class="k">'
                yield escape(l_2_k)
                yield '</span> '
                yield escape(t_7(l_2_v))
                yield '</div>'
            l_2_k = l_2_v = missing
            yield '</td></tr>\n    '
        l_1_c = missing
        yield '\n    </tbody>\n  </table>\n  </div>\n</section>\n'
    yield '\n\n'
    if (undefined(name='unstepped') if l_0_unstepped is missing else l_0_unstepped):
        pass
        yield '\n<section class="unstepped">\n  <h2>Metrics rows without a step</h2>\n  <p class="subtle">tinker-cookbook writes these when it discards groups of rollouts (<code>DiscardedWorkLog</code>); they belong to no step, so no chart shows them.</p>\n  <div class="table-wrap" tabindex="0" role="region" aria-label="Metrics rows without a step">\n  <table class="data">\n    <thead><tr><th>line of metrics.jsonl</th><th>values</th></tr></thead>\n    <tbody>\n    '
        for l_1_u in (undefined(name='unstepped') if l_0_unstepped is missing else l_0_unstepped):
            _loop_vars = {}
            pass
            yield '\n    <tr><td>'
            yield escape(environment.getattr(l_1_u, 'line'))
            yield '</td><td>'
            for (l_2_k, l_2_v) in context.call(environment.getattr(environment.getitem(l_1_u, 'values'), 'items'), _loop_vars=_loop_vars):
                _loop_vars = {}
                pass
                yield '<div class="kv"><span class="k">'
                yield escape(l_2_k)
                yield '</span> '
                yield escape(t_7(l_2_v))
                yield '</div>'
            l_2_k = l_2_v = missing
            yield '</td></tr>\n    '
        l_1_u = missing
        yield '\n    </tbody>\n  </table>\n  </div>\n</section>\n'
    yield '\n\n'
    if (undefined(name='config_json') if l_0_config_json is missing else l_0_config_json):
        pass
        yield '\n<section class="config">\n  <details><summary><h2>config.json</h2></summary><pre class="json">'
        yield escape((undefined(name='config_json') if l_0_config_json is missing else l_0_config_json))
        yield '</pre></details>\n</section>\n'
    yield '\n'
    if (not t_10(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'code_diff'))):
        pass
        yield '<p><a href="code_diff.html">code.diff</a> '
        l_0_n_diff = t_3(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'code_diff'))
        _block_vars['n_diff'] = l_0_n_diff
        yield '('
        yield escape(t_6((undefined(name='n_diff') if l_0_n_diff is missing else l_0_n_diff)))
        yield ' line'
        yield escape(('' if ((undefined(name='n_diff') if l_0_n_diff is missing else l_0_n_diff) == 1) else 's'))
        yield ')</p>'
    yield '\n'
    if (undefined(name='trace') if l_0_trace is missing else l_0_trace):
        pass
        yield '<p class="trace"><a href="'
        yield escape(environment.getattr((undefined(name='trace') if l_0_trace is missing else l_0_trace), 'href'))
        yield '" download>'
        yield escape(environment.getattr((undefined(name='trace') if l_0_trace is missing else l_0_trace), 'href'))
        yield '</a> ('
        yield escape(t_6(environment.getattr((undefined(name='trace') if l_0_trace is missing else l_0_trace), 'events')))
        yield ' event'
        yield escape(('' if (environment.getattr((undefined(name='trace') if l_0_trace is missing else l_0_trace), 'events') == 1) else 's'))
        yield ' of <code>trace_events.jsonl</code>, in the Chrome trace format): the run\'s timeline, to open in Perfetto (ui.perfetto.dev: "Open trace file") or chrome://tracing.</p>'
    yield '\n'
    l_0_word = ('update' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'step')
    _block_vars['word'] = l_0_word
    yield '\n<dialog id="rg-help" class="rg-dialog" aria-labelledby="rg-help-title">\n  <div class="dlg-head"><h2 id="rg-help-title">Keyboard shortcuts</h2><button type="button" class="dlg-close" aria-label="close">×</button></div>\n  <table class="keys">\n    <tbody>\n      <tr><td><kbd>Tab</kbd></td><td>to a chart (then its keys below), a table\'s column heading, a link</td></tr>\n      <tr><td><kbd>←</kbd> <kbd>→</kbd></td><td>on a chart: the previous / next '
    yield escape((undefined(name='word') if l_0_word is missing else l_0_word))
    yield ' (<kbd>PgUp</kbd> <kbd>PgDn</kbd>: ten; <kbd>Home</kbd> <kbd>End</kbd>: the first / last)</td></tr>\n      <tr><td><kbd>Enter</kbd></td><td>on a chart: open that '
    yield escape((undefined(name='word') if l_0_word is missing else l_0_word))
    yield "'s texts (or the nearest "
    yield escape((undefined(name='word') if l_0_word is missing else l_0_word))
    yield ' with texts); on a column heading: sort the table by it (highest first, lowest first, the run\'s order)</td></tr>\n      <tr><td><kbd>Esc</kbd></td><td>leave a chart\'s point, close this help</td></tr>\n      <tr><td><kbd>?</kbd></td><td>this help</td></tr>\n    </tbody>\n  </table>\n  <p class="subtle">With a mouse, hover a chart for its values and their change from the '
    yield escape((undefined(name='word') if l_0_word is missing else l_0_word))
    yield ' before; click to open. On a touch screen, a first tap shows the values and a second opens. An iteration page has keys of its own (<kbd>j</kbd> <kbd>k</kbd>, <kbd>n</kbd> <kbd>p</kbd>, <kbd>/</kbd>…): its <kbd>?</kbd> lists them.</p>\n</dialog>\n'

def block_charts(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_charts = resolve('charts')
    try:
        t_1 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    pass
    if t_1((undefined(name='charts') if l_0_charts is missing else l_0_charts)):
        pass
        template = environment.get_template('_charts.html', 'index.html')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {}))
        try:
            for event in gen:
                yield event
        finally: gen.close()

def block_scripts(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_super = context.super('scripts', block_scripts)
    _block_vars = {}
    l_0_charts = resolve('charts')
    l_0_root = resolve('root')
    try:
        t_1 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    pass
    yield escape(context.call(l_0_super, _block_vars=_block_vars))
    if (t_1((undefined(name='charts') if l_0_charts is missing else l_0_charts)) and environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'enabled')):
        pass
        yield '<script src="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield 'assets/vendor/vega-embed.min.js"></script>'
    yield '\n'

blocks = {'title': block_title, 'body_class': block_body_class, 'actions': block_actions, 'head': block_head, 'main': block_main, 'charts': block_charts, 'scripts': block_scripts}
debug_info = '1=12&2=17&3=29&4=39&5=49&6=68&8=71&10=160&12=162&13=164&14=172&15=180&16=183&17=190&18=203&20=208&21=218&23=226&24=228&27=234&28=254&30=257&32=264&35=275&38=278&43=287&44=289&48=292&49=294&50=296&51=298&52=301&55=304&62=307&63=311&64=319&65=327&66=340&74=354&75=358&76=360&78=362&79=368&81=378&87=380&88=385&89=387&90=395&92=397&94=405&95=409&103=439&110=442&111=446&112=452&113=456&121=469&129=472&130=476&138=491&140=494&143=497&144=508&145=520&151=523&152=525&157=529&43=532&160=556&162=574'