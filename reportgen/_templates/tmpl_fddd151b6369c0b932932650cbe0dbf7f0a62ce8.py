from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'base.html'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_csp = resolve('csp')
    l_0_version = resolve('version')
    l_0_root = resolve('root')
    l_0_up = resolve('up')
    l_0_up_label = resolve('up_label')
    l_0_site_title = resolve('site_title')
    l_0_search = resolve('search')
    l_0_source = resolve('source')
    l_0_live = resolve('live')
    l_0_is_index = resolve('is_index')
    try:
        t_1 = environment.filters['visible']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'visible' found.")
    try:
        t_2 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    pass
    yield '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta http-equiv="Content-Security-Policy" content="'
    yield escape((undefined(name='csp') if l_0_csp is missing else l_0_csp))
    yield '">\n<meta name="referrer" content="no-referrer">\n<link rel="icon" href="data:,">\n<meta name="generator" content="reportgen '
    yield escape((undefined(name='version') if l_0_version is missing else l_0_version))
    yield '">\n<title>'
    t_3 = []
    pass
    gen = context.blocks['title'][0](context)
    try:
        for event in gen:
            t_3.append(event)
    finally: gen.close()
    yield t_1(Markup(concat(t_3)))
    yield '</title>\n<link rel="stylesheet" href="'
    yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
    yield 'assets/reportgen.css">\n'
    yield from context.blocks['head'][0](context)
    yield '\n</head>\n<body class="'
    yield from context.blocks['body_class'][0](context)
    yield '">\n<a class="skip" href="#main">Skip to content</a>\n<header class="top">\n  <nav aria-label="Site">\n    '
    if (undefined(name='up') if l_0_up is missing else l_0_up):
        pass
        yield '<a class="brand" href="'
        yield escape((undefined(name='up') if l_0_up is missing else l_0_up))
        yield '">'
        yield escape((undefined(name='up_label') if l_0_up_label is missing else l_0_up_label))
        yield '</a> <span class="sep">/</span>'
    yield '\n    <a class="brand" href="'
    yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
    yield 'index.html">'
    yield escape((undefined(name='site_title') if l_0_site_title is missing else l_0_site_title))
    yield '</a>\n    '
    yield from context.blocks['crumbs'][0](context)
    yield '\n  </nav>\n  <div class="top-actions">'
    yield from context.blocks['actions'][0](context)
    if (t_2((undefined(name='search') if l_0_search is missing else l_0_search)) and (undefined(name='search') if l_0_search is missing else l_0_search)):
        pass
        yield ' <a class="to-search" href="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield 'search.html" title="search every text of the run">search</a>'
    yield '</div>\n</header>\n<main id="main">\n'
    yield from context.blocks['main'][0](context)
    yield '\n</main>\n<footer class="foot">Made by reportgen '
    yield escape((undefined(name='version') if l_0_version is missing else l_0_version))
    yield ' from <code>'
    yield escape((undefined(name='source') if l_0_source is missing else l_0_source))
    yield '</code>.</footer>\n'
    yield from context.blocks['scripts'][0](context)
    yield '\n'
    if (t_2((undefined(name='live') if l_0_live is missing else l_0_live)) and (undefined(name='live') if l_0_live is missing else l_0_live)):
        pass
        yield '<script src="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield 'assets/live.js" data-root="'
        yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
        yield '" data-index="'
        yield escape(('1' if (t_2((undefined(name='is_index') if l_0_is_index is missing else l_0_is_index)) and (undefined(name='is_index') if l_0_is_index is missing else l_0_is_index)) else '0'))
        yield '"></script>'
    yield '\n</body>\n</html>'

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

def block_head(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass

def block_body_class(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass

def block_crumbs(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass

def block_actions(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass

def block_main(context, missing=missing):
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
    _block_vars = {}
    l_0_root = resolve('root')
    pass
    yield '<script src="'
    yield escape((undefined(name='root') if l_0_root is missing else l_0_root))
    yield 'assets/reportgen.js"></script>'

blocks = {'title': block_title, 'head': block_head, 'body_class': block_body_class, 'crumbs': block_crumbs, 'actions': block_actions, 'main': block_main, 'scripts': block_scripts}
debug_info = '6=34&9=36&10=42&11=47&12=49&14=51&18=53&19=61&20=65&22=67&25=74&27=76&28=80&29=82&10=93&12=104&14=113&20=122&22=131&25=140&28=149'