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
    l_0_timing = resolve('timing')
    try:
        t_1 = environment.filters['thousands']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'thousands' found.")
    pass
    yield '\n'
    if (undefined(name='logtree_html') if l_0_logtree_html is missing else l_0_logtree_html):
        pass
        yield '\n<section class="logtree" aria-label="Logtree">\n  <details><summary><h2>Logtree'
        if (environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree') and environment.getattr(environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree'), 'title')):
            pass
            yield ': '
            yield escape(environment.getattr(environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree'), 'title'))
        yield '</h2> <span class="subtle">the tree as tinker wrote it (the groups above show its conversations)</span></summary>\n  '
        if (environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree') and environment.getattr(environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree'), 'started_at')):
            pass
            yield '<p class="subtle">started at '
            yield escape(environment.getattr(environment.getattr((undefined(name='it') if l_0_it is missing else l_0_it), 'logtree'), 'started_at'))
            yield '</p>'
        yield '\n  '
        yield escape((undefined(name='logtree_html') if l_0_logtree_html is missing else l_0_logtree_html))
        yield '\n  </details>\n</section>\n'
    yield '\n'
    if (undefined(name='timing') if l_0_timing is missing else l_0_timing):
        pass
        yield '\n<section class="timing" aria-label="Timing">\n  <details><summary><h2>Timing: '
        if environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'wall'):
            pass
            yield escape(environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'wall'))
            yield ' '
            yield escape(environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'unit'))
            yield ', '
        yield escape(t_1(environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'spans')))
        yield ' span'
        yield escape(('' if (environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'spans') == 1) else 's'))
        yield '</h2></summary>\n  '
        if environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'wall'):
            pass
            yield '<p class="subtle">This step\'s spans, from <code>timing_spans.jsonl</code>: a row for each name, in the order it first started. Each bar is one span, on the step\'s wall time (0 to '
            yield escape(environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'wall'))
            yield ' '
            yield escape(environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'unit'))
            yield '); bars that overlap (spans that ran at once) look darker. Times in '
            yield escape(environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'unit'))
            yield "; a span's total adds up its copies, so concurrent ones can exceed the wall time.</p>\n  "
        else:
            pass
            yield '<p class="subtle">This step\'s spans, from <code>timing_spans.jsonl</code>, a row for each name; none says when it ran (no <code>wall_start</code>, <code>wall_end</code>), so there are no lanes. Times in '
            yield escape(environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'unit'))
            yield '.</p>'
        yield '\n  <div class="table-wrap" tabindex="0" role="region" aria-label="Timing spans">\n  <table class="timing-table">\n    <thead><tr><th scope="col">span</th><th scope="col" class="num">count</th><th scope="col" class="num">total</th><th scope="col" class="num">mean</th><th scope="col" class="num">longest</th><th scope="col" class="num">first start</th>'
        if environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'wall'):
            pass
            yield '<th scope="col" class="tl"><span>0</span><span>'
            yield escape(environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'wall'))
            yield ' '
            yield escape(environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'unit'))
            yield '</span></th>'
        yield '</tr></thead>\n    <tbody>\n    '
        for l_1_r in environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'rows'):
            _loop_vars = {}
            pass
            yield '<tr><th scope="row"'
            if (environment.getattr(l_1_r, 'name') != environment.getattr(l_1_r, 'full_name')):
                pass
                yield ' title="'
                yield escape(environment.getattr(l_1_r, 'full_name'))
                yield '"'
            yield '>'
            yield escape(environment.getattr(l_1_r, 'name'))
            yield '</th><td class="num">'
            yield escape(t_1(environment.getattr(l_1_r, 'count')))
            yield '</td><td class="num">'
            yield escape(environment.getattr(l_1_r, 'total'))
            yield '</td><td class="num">'
            yield escape(environment.getattr(l_1_r, 'mean'))
            yield '</td><td class="num">'
            yield escape(environment.getattr(l_1_r, 'max'))
            yield '</td><td class="num">'
            yield escape(environment.getattr(l_1_r, 'first'))
            yield '</td>'
            if environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'wall'):
                pass
                yield '<td class="tl">'
                yield escape(environment.getattr(l_1_r, 'lane'))
                yield '</td>'
            yield '</tr>\n    '
        l_1_r = missing
        yield '\n    </tbody>\n  </table>\n  </div>\n  '
        if environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'more'):
            pass
            yield '<p class="note">and '
            yield escape(t_1(environment.getattr((undefined(name='timing') if l_0_timing is missing else l_0_timing), 'more')))
            yield ' more span names, not listed</p>'
        yield '\n  </details>\n</section>\n'
    yield '\n'

blocks = {'logtree': block_logtree}
debug_info = '1=12&2=17&3=35&5=38&6=43&7=49&11=52&13=55&14=65&15=77&18=80&20=88&25=118'