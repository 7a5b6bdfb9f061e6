from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = '_next.html'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_next_in_head = l_0_next_in_nav = missing
    pass
    def macro(l_1_next):
        t_1 = []
        if l_1_next is missing:
            l_1_next = undefined("parameter 'next' was not provided", name='next')
        pass
        if l_1_next:
            pass
            t_1.extend((
                '<link rel="next" href="',
                escape(environment.getattr(l_1_next, 'page')),
                '">',
            ))
        return concat(t_1)
    context.exported_vars.add('next_in_head')
    context.vars['next_in_head'] = l_0_next_in_head = Macro(environment, macro, 'next_in_head', ('next',), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_next, l_1_next_label):
        t_2 = []
        if l_1_next is missing:
            l_1_next = undefined("parameter 'next' was not provided", name='next')
        if l_1_next_label is missing:
            l_1_next_label = undefined("parameter 'next_label' was not provided", name='next_label')
        pass
        if l_1_next:
            pass
            t_2.extend((
                '<a id="nav-next" rel="next" href="',
                escape(environment.getattr(l_1_next, 'page')),
                '" title="next (j)">',
                escape(l_1_next_label),
                ' →</a>',
            ))
        else:
            pass
            t_2.append(
                '<span class="disabled">last →</span>',
            )
        return concat(t_2)
    context.exported_vars.add('next_in_nav')
    context.vars['next_in_nav'] = l_0_next_in_nav = Macro(environment, macro, 'next_in_nav', ('next', 'next_label'), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '3=12&4=28'