from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'runs_index.html'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    parent_template = None
    l_0_chip = l_0_val = missing
    try:
        t_1 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    parent_template = environment.get_template('base.html', 'runs_index.html')
    for name, parent_block in parent_template.blocks.items():
        context.blocks.setdefault(name, []).append(parent_block)
    l_0_chip = {'finished': 'good', 'crashed': 'bad', 'live': 'info'}
    context.vars['chip'] = l_0_chip
    context.exported_vars.add('chip')
    def macro(l_1_v):
        t_2 = []
        l_1_fmt = resolve('fmt')
        if l_1_v is missing:
            l_1_v = undefined("parameter 'v' was not provided", name='v')
        pass
        if t_1(l_1_v):
            pass
            t_2.append(
                '<span class="subtle">–</span>',
            )
        else:
            pass
            t_2.append(
                escape(context.call((undefined(name='fmt') if l_1_fmt is missing else l_1_fmt), l_1_v, 4)),
            )
        return concat(t_2)
    context.exported_vars.add('val')
    context.vars['val'] = l_0_val = Macro(environment, macro, 'val', ('v',), False, False, False, context.eval_ctx.autoescape)
    yield from parent_template.root_render_func(context)

def block_title(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_site_title = resolve('site_title')
    l_0_runs = resolve('runs')
    try:
        t_3 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    pass
    yield escape((undefined(name='site_title') if l_0_site_title is missing else l_0_site_title))
    yield ' · sweep of '
    yield escape(t_3((undefined(name='runs') if l_0_runs is missing else l_0_runs)))
    yield ' run'
    yield escape(('' if (t_3((undefined(name='runs') if l_0_runs is missing else l_0_runs)) == 1) else 's'))

def block_head(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass
    yield '<link rel="stylesheet" href="assets/sweep.css">'

def block_body_class(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass
    yield 'sweep-page'

def block_crumbs(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_runs = resolve('runs')
    try:
        t_3 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    pass
    yield ' <span class="sep">/</span> <span aria-current="page">sweep of '
    yield escape(t_3((undefined(name='runs') if l_0_runs is missing else l_0_runs)))
    yield ' run'
    yield escape(('' if (t_3((undefined(name='runs') if l_0_runs is missing else l_0_runs)) == 1) else 's'))
    yield '</span>'

def block_main(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_site_title = resolve('site_title')
    l_0_runs = resolve('runs')
    l_0_statuses = resolve('statuses')
    l_0_formats = resolve('formats')
    l_0_warnings = resolve('warnings')
    l_0_mixed = resolve('mixed')
    l_0_config_columns = resolve('config_columns')
    l_0_hidden_config = resolve('hidden_config')
    l_0_charts = resolve('charts')
    l_0_word = resolve('word')
    try:
        t_4 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_3 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    pass
    yield '\n<section class="sw-head">\n  <h1>'
    yield escape((undefined(name='site_title') if l_0_site_title is missing else l_0_site_title))
    yield '</h1>\n  <p class="sw-counts">'
    yield escape(t_3((undefined(name='runs') if l_0_runs is missing else l_0_runs)))
    yield ' runs'
    for (l_1_st, l_1_n) in (undefined(name='statuses') if l_0_statuses is missing else l_0_statuses):
        l_1_chip = resolve('chip')
        _loop_vars = {}
        pass
        yield ' <span class="chip '
        yield escape(context.call(environment.getattr((undefined(name='chip') if l_1_chip is missing else l_1_chip), 'get'), l_1_st, 'unknown', _loop_vars=_loop_vars))
        yield '">'
        yield escape(l_1_n)
        yield ' '
        yield escape(l_1_st)
        yield '</span>'
    l_1_st = l_1_n = l_1_chip = missing
    yield '\n  <span class="subtle">· '
    yield escape(t_4(context.eval_ctx, (undefined(name='formats') if l_0_formats is missing else l_0_formats), ' and '))
    yield '</span></p>\n  '
    if (undefined(name='warnings') if l_0_warnings is missing else l_0_warnings):
        pass
        yield '\n  <div class="warnings" role="status">\n    <h2>Warnings</h2>\n    <ul>'
        for l_1_w in (undefined(name='warnings') if l_0_warnings is missing else l_0_warnings):
            _loop_vars = {}
            pass
            yield '<li>'
            yield escape(l_1_w)
            yield '</li>'
        l_1_w = missing
        yield '</ul>\n  </div>\n  '
    yield '\n</section>\n\n<section class="sw-runs" aria-labelledby="sw-runs-h">\n  <div class="sw-toolbar">\n    <h2 id="sw-runs-h">Runs</h2>\n    <label>filter <input type="search" id="sw-filter" placeholder="name, model, value…" autocomplete="off" spellcheck="false"></label>\n    <label>status <select id="sw-status"><option value="">all</option>'
    for (l_1_st, l_1_n) in (undefined(name='statuses') if l_0_statuses is missing else l_0_statuses):
        _loop_vars = {}
        pass
        yield '<option value="'
        yield escape(l_1_st)
        yield '">'
        yield escape(l_1_st)
        yield ' ('
        yield escape(l_1_n)
        yield ')</option>'
    l_1_st = l_1_n = missing
    yield '</select></label>\n    '
    if (undefined(name='mixed') if l_0_mixed is missing else l_0_mixed):
        pass
        yield '<label>format <select id="sw-format"><option value="">all</option>'
        for l_1_f in (undefined(name='formats') if l_0_formats is missing else l_0_formats):
            _loop_vars = {}
            pass
            yield '<option value="'
            yield escape(l_1_f)
            yield '">'
            yield escape(l_1_f)
            yield '</option>'
        l_1_f = missing
        yield '</select></label>'
    yield '\n    <span id="sw-count" class="subtle" role="status" aria-live="polite"></span>\n  </div>\n  <div class="table-wrap" tabindex="0" role="region" aria-label="Runs">\n  <table class="data sw-table" id="sw-table">\n    <thead><tr>\n      <th aria-sort="none"><button type="button" class="sw-sort">run</button></th>\n      <th aria-sort="none"><button type="button" class="sw-sort">status</button></th>\n      '
    if (undefined(name='mixed') if l_0_mixed is missing else l_0_mixed):
        pass
        yield '<th aria-sort="none"><button type="button" class="sw-sort">format</button></th>'
    yield '\n      <th aria-sort="none"><button type="button" class="sw-sort">algorithm / loss</button></th>\n      <th aria-sort="none"><button type="button" class="sw-sort">model</button></th>\n      <th aria-sort="none" class="num"><button type="button" class="sw-sort" title="updates (observe) or steps (tinker) listed">iterations</button></th>\n      <th aria-sort="none" class="num"><button type="button" class="sw-sort" title="the last value of the reward metric (observe: reward/mean; tinker: env/all/reward/total)">final reward</button></th>\n      <th aria-sort="none" class="num"><button type="button" class="sw-sort" title="the highest value of the reward metric">best reward</button></th>\n      <th aria-sort="none" class="num"><button type="button" class="sw-sort" title="the last score of the evaluator “test” (else the first one): reward/total, else correct">last eval</button></th>\n      '
    for l_1_c in (undefined(name='config_columns') if l_0_config_columns is missing else l_0_config_columns):
        _loop_vars = {}
        pass
        yield '<th aria-sort="none" class="sw-cfg"><button type="button" class="sw-sort" title="'
        yield escape(('tinker config.json' if (environment.getattr(l_1_c, 'format') == 'tinker') else 'observe run params'))
        yield ': '
        yield escape(environment.getattr(l_1_c, 'key'))
        yield '">'
        yield escape(environment.getattr(l_1_c, 'key'))
        yield '</button></th>'
    l_1_c = missing
    yield '\n    </tr></thead>\n    <tbody>\n    '
    for l_1_r in (undefined(name='runs') if l_0_runs is missing else l_0_runs):
        l_1_chip = resolve('chip')
        l_1_at = resolve('at')
        l_1_val = resolve('val')
        _loop_vars = {}
        pass
        yield '\n    <tr data-run="'
        yield escape(environment.getattr(l_1_r, 'name'))
        yield '" data-status="'
        yield escape(environment.getattr(l_1_r, 'status'))
        yield '" data-format="'
        yield escape(environment.getattr(l_1_r, 'format'))
        yield '">\n      <td data-v="'
        yield escape(environment.getattr(l_1_r, 'name'))
        yield '"><span class="sw-swatch sw-c'
        yield escape(environment.getattr(l_1_r, 'colour'))
        yield '" aria-hidden="true"></span><a href="'
        yield escape(environment.getattr(l_1_r, 'href'))
        yield '">'
        yield escape(environment.getattr(l_1_r, 'name'))
        yield '</a>'
        if (environment.getattr(l_1_r, 'title') != environment.getattr(l_1_r, 'name')):
            pass
            yield ' <span class="subtle">'
            yield escape(environment.getattr(l_1_r, 'title'))
            yield '</span>'
        if environment.getattr(l_1_r, 'warnings'):
            pass
            yield ' <span class="chip warn" title="warnings on the run\'s page">'
            yield escape(environment.getattr(l_1_r, 'warnings'))
            yield ' warning'
            yield escape(('' if (environment.getattr(l_1_r, 'warnings') == 1) else 's'))
            yield '</span>'
        yield '</td>\n      <td data-v="'
        yield escape(environment.getattr(l_1_r, 'status'))
        yield '"><span class="chip '
        yield escape(context.call(environment.getattr((undefined(name='chip') if l_1_chip is missing else l_1_chip), 'get'), environment.getattr(l_1_r, 'status'), 'unknown', _loop_vars=_loop_vars))
        yield '" title="'
        yield escape(environment.getattr(l_1_r, 'status_reason'))
        yield '">'
        yield escape(environment.getattr(l_1_r, 'status'))
        yield '</span></td>\n      '
        if (undefined(name='mixed') if l_0_mixed is missing else l_0_mixed):
            pass
            yield '<td>'
            yield escape(environment.getattr(l_1_r, 'format'))
            yield '</td>'
        yield '\n      <td>'
        yield escape(environment.getattr(l_1_r, 'algorithm'))
        yield '</td>\n      <td title="'
        yield escape(environment.getattr(l_1_r, 'model_full'))
        yield '">'
        yield escape(environment.getattr(l_1_r, 'model'))
        yield '</td>\n      <td class="num" data-v="'
        yield escape(environment.getattr(l_1_r, 'iterations'))
        yield '">'
        yield escape(environment.getattr(l_1_r, 'iterations'))
        yield '</td>\n      '
        if environment.getattr(l_1_r, 'reward'):
            pass
            yield '\n      '
            l_1_at = ('update' if (environment.getattr(l_1_r, 'format') == 'observe') else 'step')
            _loop_vars['at'] = l_1_at
            yield '\n      <td class="num" data-v="'
            yield escape(environment.getattr(environment.getattr(l_1_r, 'reward'), 'final'))
            yield '"><a href="'
            yield escape(environment.getattr(l_1_r, 'href'))
            yield '#u'
            yield escape(environment.getattr(environment.getattr(l_1_r, 'reward'), 'final_step'))
            yield '" title="'
            yield escape(environment.getattr(environment.getattr(l_1_r, 'reward'), 'metric'))
            yield ' at '
            yield escape((undefined(name='at') if l_1_at is missing else l_1_at))
            yield ' '
            yield escape(environment.getattr(environment.getattr(l_1_r, 'reward'), 'final_step'))
            yield '">'
            yield escape(context.call((undefined(name='val') if l_1_val is missing else l_1_val), environment.getattr(environment.getattr(l_1_r, 'reward'), 'final'), _loop_vars=_loop_vars))
            yield '</a></td>\n      <td class="num" data-v="'
            yield escape(environment.getattr(environment.getattr(l_1_r, 'reward'), 'best'))
            yield '"><a href="'
            yield escape(environment.getattr(l_1_r, 'href'))
            yield '#u'
            yield escape(environment.getattr(environment.getattr(l_1_r, 'reward'), 'best_step'))
            yield '" title="'
            yield escape(environment.getattr(environment.getattr(l_1_r, 'reward'), 'metric'))
            yield ' at '
            yield escape((undefined(name='at') if l_1_at is missing else l_1_at))
            yield ' '
            yield escape(environment.getattr(environment.getattr(l_1_r, 'reward'), 'best_step'))
            yield '">'
            yield escape(context.call((undefined(name='val') if l_1_val is missing else l_1_val), environment.getattr(environment.getattr(l_1_r, 'reward'), 'best'), _loop_vars=_loop_vars))
            yield '</a></td>\n      '
        else:
            pass
            yield '<td class="num" data-v=""><span class="subtle">–</span></td><td class="num" data-v=""><span class="subtle">–</span></td>'
        yield '\n      '
        if environment.getattr(l_1_r, 'eval'):
            pass
            yield '\n      <td class="num" data-v="'
            yield escape(environment.getattr(environment.getattr(l_1_r, 'eval'), 'value'))
            yield '">'
            if environment.getattr(l_1_r, 'eval_href'):
                pass
                yield '<a href="'
                yield escape(environment.getattr(l_1_r, 'eval_href'))
                yield '" title="'
                yield escape(environment.getattr(environment.getattr(l_1_r, 'eval'), 'metric'))
                yield ' at step '
                yield escape(environment.getattr(environment.getattr(l_1_r, 'eval'), 'step'))
                yield '">'
                yield escape(context.call((undefined(name='val') if l_1_val is missing else l_1_val), environment.getattr(environment.getattr(l_1_r, 'eval'), 'value'), _loop_vars=_loop_vars))
                yield '</a>'
            else:
                pass
                yield '<span title="'
                yield escape(environment.getattr(environment.getattr(l_1_r, 'eval'), 'metric'))
                yield ' at step '
                yield escape(environment.getattr(environment.getattr(l_1_r, 'eval'), 'step'))
                yield '">'
                yield escape(context.call((undefined(name='val') if l_1_val is missing else l_1_val), environment.getattr(environment.getattr(l_1_r, 'eval'), 'value'), _loop_vars=_loop_vars))
                yield '</span>'
            yield '</td>\n      '
        else:
            pass
            yield '<td class="num" data-v=""><span class="subtle">–</span></td>'
        yield '\n      '
        for l_2_c in environment.getattr(l_1_r, 'config'):
            _loop_vars = {}
            pass
            yield '<td class="sw-cfg'
            yield escape((' num' if environment.getattr(l_2_c, 'num') else ''))
            yield '" data-v="'
            yield escape(environment.getattr(l_2_c, 'v'))
            yield '">'
            if environment.getattr(l_2_c, 'na'):
                pass
                yield '<span class="subtle">–</span>'
            else:
                pass
                yield escape(environment.getattr(l_2_c, 'text'))
            yield '</td>'
        l_2_c = missing
        yield '\n    </tr>\n    '
    l_1_r = l_1_chip = l_1_at = l_1_val = missing
    yield '\n    </tbody>\n  </table>\n  </div>\n  <p class="sw-note subtle">'
    if (undefined(name='config_columns') if l_0_config_columns is missing else l_0_config_columns):
        pass
        yield 'The columns after “last eval” are the config keys whose values differ between runs of the same format'
        if (undefined(name='mixed') if l_0_mixed is missing else l_0_mixed):
            pass
            yield " (tinker: config.json; observe: the run record's params)"
        yield ": the sweep's hyper-parameters."
    elif (t_3((undefined(name='runs') if l_0_runs is missing else l_0_runs)) > 1):
        pass
        yield 'No config key differs between runs of the same format.'
    if (undefined(name='hidden_config') if l_0_hidden_config is missing else l_0_hidden_config):
        pass
        yield ' More keys differ: <code>'
        yield escape(t_4(context.eval_ctx, (undefined(name='hidden_config') if l_0_hidden_config is missing else l_0_hidden_config), ', '))
        yield '</code>.'
    yield '</p>\n  <p class="sw-note subtle">Status: <em>finished</em> (a final checkpoint, or the last planned update), <em>crashed</em> (the last iteration or update never finished), <em>live</em> (still going, or stopped); hover a status for its reason.</p>\n</section>\n\n<section class="sw-charts" id="sw-charts" aria-labelledby="sw-charts-h">\n  <h2 id="sw-charts-h">Curves</h2>\n  '
    if (undefined(name='charts') if l_0_charts is missing else l_0_charts):
        pass
        yield '\n  <noscript><p class="note">The curves, and the table\'s filter and sort, need JavaScript; the table above holds the final and best values, and each run\'s own page its charts\' numbers.</p></noscript>\n  <p class="sw-hint subtle">One colour per run; runs filtered out of the table are not drawn. Click a run to hide or show it; click a point to open that run\'s '
        yield escape((undefined(name='word') if l_0_word is missing else l_0_word))
        yield '.</p>\n  <div class="sw-legend" id="sw-legend" role="group" aria-label="Runs drawn">\n    '
        for l_1_r in (undefined(name='runs') if l_0_runs is missing else l_0_runs):
            _loop_vars = {}
            pass
            yield '<button type="button" class="sw-key" data-run="'
            yield escape(environment.getattr(l_1_r, 'name'))
            yield '" aria-pressed="true"><span class="sw-swatch sw-c'
            yield escape(environment.getattr(l_1_r, 'colour'))
            yield '" aria-hidden="true"></span>'
            yield escape(environment.getattr(l_1_r, 'name'))
            yield '</button>'
        l_1_r = missing
        yield '\n    <button type="button" class="sw-btn" id="sw-all">show all</button>\n  </div>\n  <div class="sw-grid">\n  '
        for l_1_c in (undefined(name='charts') if l_0_charts is missing else l_0_charts):
            _loop_vars = {}
            pass
            yield '\n    <figure class="sw-chart" id="chart-'
            yield escape(environment.getattr(l_1_c, 'id'))
            yield '" data-chart="'
            yield escape(environment.getattr(l_1_c, 'id'))
            yield '">\n      <figcaption><span class="sw-title">'
            yield escape(environment.getattr(l_1_c, 'title'))
            yield '</span> <span class="subtle sw-metric">'
            yield escape(environment.getattr(l_1_c, 'note'))
            yield '</span></figcaption>\n      <div class="sw-plot" tabindex="0" role="group" aria-roledescription="chart" aria-label="curves of '
            yield escape(environment.getattr(l_1_c, 'title'))
            yield ', one per run; arrow keys move between points, Enter opens"><p class="sw-status subtle">drawing…</p></div>\n    </figure>\n  '
        l_1_c = missing
        yield '\n  </div>\n  <div id="sw-said" class="vh" role="status" aria-live="polite"></div>\n  '
    else:
        pass
        yield '\n  <p class="subtle">None of the runs logged a reward or another key metric.</p>\n  '
    yield '\n</section>\n'

def block_scripts(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_data_file = resolve('data_file')
    pass
    yield '\n<script src="'
    yield escape((undefined(name='data_file') if l_0_data_file is missing else l_0_data_file))
    yield '"></script>\n<script src="assets/vendor/vega.min.js"></script>\n<script src="assets/vendor/vega-lite.min.js"></script>\n<script src="assets/vendor/vega-interpreter.min.js"></script>\n<script src="assets/reportgen.js"></script>\n<script src="assets/sweep.js"></script>\n'

blocks = {'title': block_title, 'head': block_head, 'body_class': block_body_class, 'crumbs': block_crumbs, 'main': block_main, 'scripts': block_scripts}
debug_info = '2=19&7=22&8=25&3=46&4=68&5=78&6=88&9=109&11=140&12=142&13=157&14=159&17=162&26=171&27=183&35=197&42=201&45=213&46=220&47=226&48=247&49=255&50=261&51=263&52=267&53=271&54=274&55=277&56=291&58=309&59=312&61=339&68=358&69=365&70=368&76=374&78=377&80=379&84=391&85=395&86=399&87=403&97=412&98=422'