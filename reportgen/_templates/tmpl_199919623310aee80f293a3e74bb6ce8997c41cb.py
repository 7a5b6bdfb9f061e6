from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'tinker_iteration.html'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    parent_template = None
    pass
    parent_template = environment.get_template('iteration.html', 'tinker_iteration.html')
    for name, parent_block in parent_template.blocks.items():
        context.blocks.setdefault(name, []).append(parent_block)
    yield from parent_template.root_render_func(context)

def block_logtree(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_logtree_html = resolve('logtree_html')
    l_0_it = resolve('it')
    pass
    yield '\n'
    if (undefined(name='logtree_html') if l_0_logtree_html is missing else l_0_logtree_html):
        pass
        yield '\n<section class="logtree" aria-label="Logtree">\n  <details open><summary><h2>Logtree'
        if (environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree') and environment.getattr(environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree'), 'title')):
            pass
            yield ': '
            yield escape(environment.getattr(environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree'), 'title'))
        yield '</h2></summary>\n  '
        if (environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree') and environment.getattr(environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree'), 'started_at')):
            pass
            yield '<p class="subtle">started at '
            yield escape(environment.getattr(environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree'), 'started_at'))
            yield '</p>'
        yield '\n  '
        yield escape((undefined(name='logtree_html') if l_0_logtree_html is missing else l_0_logtree_html))
        yield '\n  </details>\n</section>\n'
    yield '\n'

blocks = {'logtree': block_logtree}
debug_info = '1=12&2=17&3=28&5=31&6=36&7=42'