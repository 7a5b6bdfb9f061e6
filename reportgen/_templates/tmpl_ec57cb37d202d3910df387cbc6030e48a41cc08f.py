from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'code_diff.html'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    parent_template = None
    pass
    parent_template = environment.get_template('base.html', 'code_diff.html')
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
    yield 'code.diff · '
    yield escape((undefined(name='site_title') if l_0_site_title is missing else l_0_site_title))

def block_crumbs(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass
    yield ' <span class="sep">/</span> <span aria-current="page">code.diff</span>'

def block_main(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_lines = resolve('lines')
    pass
    yield '\n<h1>code.diff</h1>\n<pre class="diff">'
    for (l_1_cls, l_1_line) in (undefined(name='lines') if l_0_lines is missing else l_0_lines):
        _loop_vars = {}
        pass
        yield '<span class="'
        yield escape(l_1_cls)
        yield '">'
        yield escape(l_1_line)
        yield '</span>\n'
    l_1_cls = l_1_line = missing
    yield '</pre>\n'

blocks = {'title': block_title, 'crumbs': block_crumbs, 'main': block_main}
debug_info = '1=12&2=17&3=29&4=39&6=49'