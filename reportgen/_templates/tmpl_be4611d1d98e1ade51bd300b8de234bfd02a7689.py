from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'iteration.html'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    parent_template = None
    l_0_next_in_head = l_0_next_in_nav = missing
    pass
    parent_template = environment.get_template('base.html', 'iteration.html')
    for name, parent_block in parent_template.blocks.items():
        context.blocks.setdefault(name, []).append(parent_block)
    included_template = environment.get_template('_next.html', 'iteration.html')._get_default_module(context)
    l_0_next_in_head = getattr(included_template, 'next_in_head', missing)
    if l_0_next_in_head is missing:
        l_0_next_in_head = undefined(f"the template {included_template.__name__!r} (imported on line 2 in 'iteration.html') does not export the requested name 'next_in_head'", name='next_in_head')
    l_0_next_in_nav = getattr(included_template, 'next_in_nav', missing)
    if l_0_next_in_nav is missing:
        l_0_next_in_nav = undefined(f"the template {included_template.__name__!r} (imported on line 2 in 'iteration.html') does not export the requested name 'next_in_nav'", name='next_in_nav')
    context.vars.update({'next_in_head': l_0_next_in_head, 'next_in_nav': l_0_next_in_nav})
    context.exported_vars.difference_update(('next_in_head', 'next_in_nav'))
    yield from parent_template.root_render_func(context)

def block_title(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_page_title = resolve('page_title')
    l_0_site_title = resolve('site_title')
    pass
    yield escape((undefined(name='page_title') if l_0_page_title is missing else l_0_page_title))
    yield ' · '
    yield escape((undefined(name='site_title') if l_0_site_title is missing else l_0_site_title))

def block_head(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_root = resolve('root')
    l_0_prompt_links = resolve('prompt_links')
    l_0_markdown = resolve('markdown')
    l_0_prev = resolve('prev')
    l_0_next_in_head = resolve('next_in_head')
    l_0_next = resolve('next')
    pass
    yield '\n<link rel="stylesheet" href="'
    yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
    yield 'assets/viewer.css">\n'
    if (undefined(name='prompt_links') if l_0_prompt_links is missing else l_0_prompt_links):
        pass
        yield '<script src="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield 'prompts.js"></script>'
    yield '\n'
    if (undefined(name='markdown') if l_0_markdown is missing else l_0_markdown):
        pass
        yield '<link rel="stylesheet" href="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield 'assets/vendor/katex.min.css">'
    yield '\n'
    if (undefined(name='prev') if l_0_prev is missing else l_0_prev):
        pass
        yield '<link rel="prev" href="'
        yield escape(environment.getattr((undefined(name='prev') if l_0_prev is missing else l_0_prev), 'page'))
        yield '">'
    yield '\n'
    yield escape(context.call((undefined(name='next_in_head') if l_0_next_in_head is missing else l_0_next_in_head), (undefined(name='next') if l_0_next is missing else l_0_next), _block_vars=_block_vars))

def block_body_class(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass
    yield 'iteration-page'

def block_crumbs(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_page_title = resolve('page_title')
    pass
    yield ' <span class="sep">/</span> <span aria-current="page">'
    yield escape((undefined(name='page_title') if l_0_page_title is missing else l_0_page_title))
    yield '</span>'

def block_actions(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_prev = resolve('prev')
    l_0_prev_label = resolve('prev_label')
    l_0_ref = resolve('ref')
    l_0_run = resolve('run')
    l_0_next_in_nav = resolve('next_in_nav')
    l_0_next = resolve('next')
    l_0_next_label = resolve('next_label')
    pass
    yield '\n<nav class="pager" aria-label="Iterations">\n'
    if (undefined(name='prev') if l_0_prev is missing else l_0_prev):
        pass
        yield '<a id="nav-prev" rel="prev" href="'
        yield escape(environment.getattr((undefined(name='prev') if l_0_prev is missing else l_0_prev), 'page'))
        yield '" title="previous (k)">← '
        yield escape((undefined(name='prev_label') if l_0_prev_label is missing else l_0_prev_label))
        yield '</a>'
    else:
        pass
        yield '<span class="disabled">← first</span>'
    yield '\n\n<a href="index.html'
    if (environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'kind') == 'train'):
        pass
        yield '#u'
        yield escape(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'number'))
    else:
        pass
        yield '#ev-'
        yield escape(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'label'))
        yield '-'
        yield escape(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'number'))
    yield '">all '
    yield escape(('updates' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'iterations'))
    yield '</a>\n'
    yield escape(context.call((undefined(name='next_in_nav') if l_0_next_in_nav is missing else l_0_next_in_nav), (undefined(name='next') if l_0_next is missing else l_0_next), (undefined(name='next_label') if l_0_next_label is missing else l_0_next_label), _block_vars=_block_vars))
    yield '\n</nav>\n'

def block_main(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_page_key = resolve('page_key')
    l_0_ref = resolve('ref')
    l_0_page_no = resolve('page_no')
    l_0_pages = resolve('pages')
    l_0_site_title = resolve('site_title')
    l_0_page_title = resolve('page_title')
    l_0_run = resolve('run')
    l_0_training_known = resolve('training_known')
    l_0_logtree_name = resolve('logtree_name')
    l_0_same_step = resolve('same_step')
    l_0_metric_prefix = resolve('metric_prefix')
    l_0_it = resolve('it')
    l_0_pages_caption = resolve('pages_caption')
    l_0_overview_page = resolve('overview_page')
    l_0_overview_html = resolve('overview_html')
    l_0_overview_count = resolve('overview_count')
    l_0_n_groups = resolve('n_groups')
    l_0_skip_reasons = resolve('skip_reasons')
    l_0_tool_names = resolve('tool_names')
    l_0_badge_names = resolve('badge_names')
    l_0_has_conversations = resolve('has_conversations')
    l_0_tool_errors_known = resolve('tool_errors_known')
    l_0_equal_filter = resolve('equal_filter')
    l_0_markdown = resolve('markdown')
    l_0_groups_html = resolve('groups_html')
    try:
        t_1 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_2 = environment.filters['thousands']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'thousands' found.")
    try:
        t_3 = environment.filters['visible']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'visible' found.")
    try:
        t_4 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '\n<div id="rg-viewer" hidden data-key="'
    yield escape((undefined(name='page_key') if l_0_page_key is missing else l_0_page_key))
    yield '" data-kind="'
    yield escape(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'kind'))
    yield '" data-number="'
    yield escape(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'number'))
    yield '" data-label="'
    yield escape(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'label'))
    yield '" data-page="'
    yield escape((undefined(name='page_no') if l_0_page_no is missing else l_0_page_no))
    yield '" data-pages="'
    l_1_loop = missing
    for (l_1_q, l_1_href), l_1_loop in LoopContext((undefined(name='pages') if l_0_pages is missing else l_0_pages), undefined):
        _loop_vars = {}
        pass
        yield escape(l_1_href)
        yield escape((' ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 21 in 'iteration.html' evaluated to false and no else section was defined.")))
    l_1_loop = l_1_q = l_1_href = missing
    yield '" data-site="'
    yield escape((undefined(name='site_title') if l_0_site_title is missing else l_0_site_title))
    yield '" data-title="'
    yield escape((undefined(name='page_title') if l_0_page_title is missing else l_0_page_title))
    yield '" data-word="'
    yield escape(('update' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'step'))
    yield '"></div>\n<section class="it-head">\n  <h1>'
    yield escape((undefined(name='page_title') if l_0_page_title is missing else l_0_page_title))
    yield '</h1>\n  <p class="facts">\n    '
    if (not t_4(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'segment'))):
        pass
        yield '<span>segment '
        yield escape(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'segment'))
        yield '</span>'
    yield '\n    <span class="status status-'
    yield escape(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'status'))
    yield '">'
    yield escape((('incomplete update, or incomplete export' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'incomplete: being written, or the run stopped there') if (environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'status') == 'incomplete') else environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'status')))
    yield '</span>\n    <span>'
    yield escape(t_2(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'rollouts')))
    yield ' rollout'
    yield escape(('' if (environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'rollouts') == 1) else 's'))
    yield ' in '
    yield escape(t_2(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'groups')))
    yield ' group'
    yield escape(('' if (environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'groups') == 1) else 's'))
    yield '</span>\n    '
    if (undefined(name='training_known') if l_0_training_known is missing else l_0_training_known):
        pass
        yield '<span>'
        yield escape(t_2(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'trained')))
        yield '/'
        yield escape(t_2(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'rollouts')))
        yield ' trained'
        if environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'unknown'):
            pass
            yield ', '
            yield escape(t_2(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'unknown')))
            yield ' unknown'
        yield '</span>'
    yield '\n    '
    if environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'time'):
        pass
        yield '<span>at <time datetime="'
        yield escape(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'time'))
        yield '">'
        yield escape(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'time'))
        yield '</time></span>'
    yield '\n    <a href="'
    yield escape((undefined(name='logtree_name') if l_0_logtree_name is missing else l_0_logtree_name))
    yield '">logtree JSON</a>\n  </p>\n  '
    if (undefined(name='same_step') if l_0_same_step is missing else l_0_same_step):
        pass
        yield '<p class="facts same-step">at this step: '
        l_1_loop = missing
        for (l_1_what, l_1_href), l_1_loop in LoopContext((undefined(name='same_step') if l_0_same_step is missing else l_0_same_step), undefined):
            _loop_vars = {}
            pass
            yield '<a href="'
            yield escape(l_1_href)
            yield '">'
            yield escape(l_1_what)
            yield '</a>'
            yield escape((' · ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 32 in 'iteration.html' evaluated to false and no else section was defined.")))
        l_1_loop = l_1_what = l_1_href = missing
        yield '</p>'
    yield '\n  '
    if environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'headline'):
        pass
        yield '\n  <dl class="headline">\n    '
        l_0_metric_prefix = (context.call(environment.getattr(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'eval_metric_prefix'), 'get'), environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'label'), _block_vars=_block_vars) if (environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'kind') == 'eval') else None)
        _block_vars['metric_prefix'] = l_0_metric_prefix
        yield '\n    '
        for (l_1_k, l_1_v) in context.call(environment.getattr(environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'headline'), 'items'), _block_vars=_block_vars):
            l_1_fmt = resolve('fmt')
            _loop_vars = {}
            pass
            yield '<div><dt>'
            if (undefined(name='metric_prefix') if l_0_metric_prefix is missing else l_0_metric_prefix):
                pass
                yield escape((undefined(name='metric_prefix') if l_0_metric_prefix is missing else l_0_metric_prefix))
                yield '/'
            yield escape(l_1_k)
            yield '</dt><dd>'
            yield escape(context.call((undefined(name='fmt') if l_1_fmt is missing else l_1_fmt), l_1_v, _loop_vars=_loop_vars))
            yield '</dd></div>'
        l_1_k = l_1_v = l_1_fmt = missing
        yield '\n  </dl>\n  '
    yield '\n  '
    for l_1_w in environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'warnings'):
        _loop_vars = {}
        pass
        yield '<p class="warning">'
        yield escape(l_1_w)
        yield '</p>'
    l_1_w = missing
    yield '\n  '
    for l_1_n in environment.getattr((undefined(name='ref') if l_0_ref is missing else l_0_ref), 'notes'):
        _loop_vars = {}
        pass
        yield '<p class="note">'
        yield escape(l_1_n)
        yield '</p>'
    l_1_n = missing
    yield '\n</section>\n\n'
    if (t_1((undefined(name='pages') if l_0_pages is missing else l_0_pages)) > 1):
        pass
        yield '\n<nav class="subpages" aria-label="Pages of this iteration">\n  '
        yield escape((undefined(name='pages_caption') if l_0_pages_caption is missing else l_0_pages_caption))
        yield ':\n  '
        for (l_1_q, l_1_href) in (undefined(name='pages') if l_0_pages is missing else l_0_pages):
            _loop_vars = {}
            pass
            if (l_1_q == (undefined(name='page_no') if l_0_page_no is missing else l_0_page_no)):
                pass
                yield '<strong aria-current="page">page '
                yield escape(l_1_q)
                yield '</strong>'
            else:
                pass
                yield '<a href="'
                yield escape(l_1_href)
                yield '">page '
                yield escape(l_1_q)
                yield '</a>'
            yield ' '
        l_1_q = l_1_href = missing
        yield '\n  '
        if (undefined(name='overview_page') if l_0_overview_page is missing else l_0_overview_page):
            pass
            yield '· <a class="to-overview" href="'
            yield escape((undefined(name='overview_page') if l_0_overview_page is missing else l_0_overview_page))
            yield '#all-groups">the table of all groups</a> (on page 1)'
        yield '\n</nav>\n'
        if (undefined(name='overview_html') if l_0_overview_html is missing else l_0_overview_html):
            pass
            yield '<details class="allgroups" id="all-groups">\n  <summary>all '
            yield escape(context.call(environment.getattr('{:,}', 'format'), (undefined(name='overview_count') if l_0_overview_count is missing else l_0_overview_count), _block_vars=_block_vars))
            yield ' groups of this '
            yield escape(('update' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'iteration'))
            yield ', on '
            yield escape(t_1((undefined(name='pages') if l_0_pages is missing else l_0_pages)))
            yield ' pages</summary>\n  <div class="table-wrap" tabindex="0" role="region" aria-label="All groups">\n  <table class="allgroups-table">\n    <thead><tr><th scope="col">group</th><th scope="col">page</th><th scope="col" class="num">members</th><th scope="col" class="num">mean reward</th><th scope="col" class="num">lowest &#8230; highest</th>'
            if (undefined(name='training_known') if l_0_training_known is missing else l_0_training_known):
                pass
                yield '<th scope="col" class="num">trained</th>'
            yield '</tr></thead>\n    <tbody>\n'
            yield escape((undefined(name='overview_html') if l_0_overview_html is missing else l_0_overview_html))
            yield '    </tbody>\n  </table>\n  </div>\n</details>\n'
        yield '\n'
    yield '\n\n'
    if (undefined(name='n_groups') if l_0_n_groups is missing else l_0_n_groups):
        pass
        yield '\n<form class="viewer-bar" id="rg-bar" role="search" aria-label="Filter and view rollouts" hidden>\n  <div class="bar-row">\n    <label class="search"><span class="vh">Search texts</span><input type="search" id="f-q" placeholder="Search texts  ( / )" autocomplete="off" spellcheck="false"></label>\n    <label class="chk" title="upper and lower case as typed"><input type="checkbox" id="f-case"> match case</label>\n    <label class="num" title="reward at least (members without a reward are left out)">reward ≥ <input type="number" step="any" id="f-rmin" inputmode="decimal" aria-label="reward at least"></label>\n    <label class="num" title="reward at most (members without a reward are left out)">≤ <input type="number" step="any" id="f-rmax" inputmode="decimal" aria-label="reward at most"></label>\n    '
        if (undefined(name='skip_reasons') if l_0_skip_reasons is missing else l_0_skip_reasons):
            pass
            yield '<label><span class="vh">skip reason</span><select id="f-skip"><option value="">any skip reason</option>'
            for l_1_r in (undefined(name='skip_reasons') if l_0_skip_reasons is missing else l_0_skip_reasons):
                _loop_vars = {}
                pass
                yield '<option value="'
                yield escape(l_1_r)
                yield '">skipped: '
                yield escape(t_3(l_1_r))
                yield '</option>'
            l_1_r = missing
            yield '</select></label>'
        yield '\n    '
        if (undefined(name='tool_names') if l_0_tool_names is missing else l_0_tool_names):
            pass
            yield '<label><span class="vh">tool</span><select id="f-tool"><option value="">any tool</option>'
            for l_1_t in (undefined(name='tool_names') if l_0_tool_names is missing else l_0_tool_names):
                _loop_vars = {}
                pass
                yield '<option value="'
                yield escape(l_1_t)
                yield '">tool: '
                yield escape(t_3(l_1_t))
                yield '</option>'
            l_1_t = missing
            yield '</select></label>'
        yield '\n    '
        if (undefined(name='badge_names') if l_0_badge_names is missing else l_0_badge_names):
            pass
            yield '<label><span class="vh">badge</span><select id="f-badge"><option value="">any badge</option>'
            for l_1_b in (undefined(name='badge_names') if l_0_badge_names is missing else l_0_badge_names):
                _loop_vars = {}
                pass
                yield '<option value="'
                yield escape(l_1_b)
                yield '">badge: '
                yield escape(t_3(l_1_b))
                yield '</option>'
            l_1_b = missing
            yield '</select></label>'
        yield '\n    <label><span class="vh">sort groups</span><select id="f-sort"><option value="id">sort: group id</option><option value="mean">sort: mean reward</option><option value="spread">sort: reward spread</option></select></label>\n  </div>\n  <div class="bar-row">\n    '
        if (undefined(name='training_known') if l_0_training_known is missing else l_0_training_known):
            pass
            yield '<label class="chk"><input type="checkbox" id="f-trained"> trained only</label>'
        yield '\n    <label class="chk"><input type="checkbox" id="f-flag"> truncated or skipped</label>\n    '
        if ((undefined(name='has_conversations') if l_0_has_conversations is missing else l_0_has_conversations) and (undefined(name='tool_errors_known') if l_0_tool_errors_known is missing else l_0_tool_errors_known)):
            pass
            yield '<label class="chk"><input type="checkbox" id="f-errors"> tool errors</label>'
        yield '\n    <label class="chk"><input type="checkbox" id="f-dup"> duplicates</label>\n    '
        if (undefined(name='equal_filter') if l_0_equal_filter is missing else l_0_equal_filter):
            pass
            yield '<label class="chk" title="groups whose members all got the same reward: no learning signal"><input type="checkbox" id="f-flat"> equal rewards</label>'
        yield '\n    <button type="button" id="b-clear" disabled title="clear the filters">clear</button>\n    <span class="bar-sep" aria-hidden="true"></span>\n    <label class="chk"><input type="checkbox" id="f-compact"> compact</label>\n    '
        if (undefined(name='markdown') if l_0_markdown is missing else l_0_markdown):
            pass
            yield '<label class="chk" title="render markdown and math (m)"><input type="checkbox" id="f-md"> markdown</label>'
        yield '\n    <button type="button" id="b-expand" title="expand every group">expand</button>\n    <button type="button" id="b-collapse" title="collapse every group">collapse</button>\n    <button type="button" id="b-compare" disabled title="tick “compare” on two members, on this page or another (c)">compare (0/2)</button>\n    <output id="rg-count" aria-live="polite"></output>\n    <button type="button" id="b-help" class="help-btn" aria-haspopup="dialog" aria-label="keyboard shortcuts" title="keyboard shortcuts (?)">?</button>\n  </div>\n</form>\n'
    yield '\n\n<section class="groups" aria-label="Groups">\n'
    yield escape((undefined(name='groups_html') if l_0_groups_html is missing else l_0_groups_html))
    yield '\n</section>\n<p id="rg-none" class="missing" hidden>'
    if (t_1((undefined(name='pages') if l_0_pages is missing else l_0_pages)) > 1):
        pass
        yield 'No member of this page matches the filters (the links to the other pages keep them).'
    else:
        pass
        yield 'No member matches the filters.'
    yield ' <button type="button" id="b-clear2">clear filters</button></p>'
    yield from context.blocks['logtree'][0](context)
    yield '\n\n<dialog id="rg-help" class="rg-dialog" aria-labelledby="rg-help-title">\n  <div class="dlg-head"><h2 id="rg-help-title">Keyboard shortcuts</h2><button type="button" class="dlg-close" aria-label="close">×</button></div>\n  <table class="keys">\n    <tbody>\n      <tr><td><kbd>j</kbd></td><td>next '
    yield escape(('update' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'iteration'))
    yield ' (filters are kept)</td></tr>\n      <tr><td><kbd>k</kbd></td><td>previous '
    yield escape(('update' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'iteration'))
    yield '</td></tr>\n      <tr><td><kbd>↓</kbd> <kbd>↑</kbd></td><td>scroll; pressed again at the end (top) of the page, the next (previous) '
    yield escape(('update' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'iteration'))
    yield "</td></tr>\n      <tr><td><kbd>n</kbd> / <kbd>p</kbd></td><td>next / previous group the filters leave (past this page's last, on to the next page)</td></tr>\n      <tr><td><kbd>/</kbd></td><td>search the texts</td></tr>\n      <tr><td><kbd>c</kbd></td><td>compare the two picked members (tick “compare” on a member; works across "
    yield escape(('updates' if (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'format') == 'observe') else 'iterations'))
    yield ')</td></tr>\n      <tr><td><kbd>m</kbd></td><td>exact text ↔ markdown</td></tr>\n      <tr><td><kbd>?</kbd></td><td>this help</td></tr>\n      <tr><td><kbd>Esc</kbd></td><td>close a dialog, leave the search box (the search stays)</td></tr>\n    </tbody>\n  </table>\n  <p><label class="chk"><input type="checkbox" id="f-keys" checked> single-key shortcuts (all but <kbd>Esc</kbd>; the arrows too)</label>\n  <span class="subtle">Off, the arrows scroll and no letter does anything: for speech input and for readers who type by accident. Kept in this browser for every page.</span></p>\n  <p class="subtle">Keys are ignored while typing in a field. The filters, the sort, the view and the comparison live in the address (after <code>#</code>): copy it to share the same view. The link button next to each group and member copies a link to it.</p>\n</dialog>\n<dialog id="rg-compare" class="rg-dialog cmp" aria-labelledby="rg-cmp-title">\n  <div class="dlg-head"><h2 id="rg-cmp-title">Compare</h2><button type="button" class="dlg-close" aria-label="close">×</button></div>\n  <div id="rg-cmp-body"></div>\n</dialog>\n<aside id="rg-tray" class="tray" aria-label="Members picked for comparison" hidden></aside>\n<div id="rg-toast" class="toast" aria-hidden="true" hidden></div>\n<div id="rg-said" class="vh" role="status" aria-live="polite"></div>\n'

def block_logtree(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass

def block_scripts(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_super = context.super('scripts', block_scripts)
    _block_vars = {}
    l_0_root = resolve('root')
    pass
    yield '<script src="'
    yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
    yield 'assets/match.js"></script>'
    yield escape(context.call(l_0_super, _block_vars=_block_vars))

blocks = {'title': block_title, 'head': block_head, 'body_class': block_body_class, 'crumbs': block_crumbs, 'actions': block_actions, 'main': block_main, 'logtree': block_logtree, 'scripts': block_scripts}
debug_info = '1=13&2=16&3=27&4=41&5=56&6=58&7=64&8=70&9=76&10=78&11=88&12=101&14=117&16=128&17=141&20=144&21=202&23=226&25=228&26=234&27=238&28=246&29=260&30=268&32=270&33=286&35=289&36=292&39=308&40=316&43=324&45=327&46=329&47=347&49=353&53=356&56=362&58=366&65=370&72=373&73=387&74=401&78=415&80=419&82=423&86=427&97=432&99=434&102=441&108=443&109=445&110=447&113=449&102=452&133=461'