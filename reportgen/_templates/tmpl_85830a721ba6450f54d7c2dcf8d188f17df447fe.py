from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'logs.html'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    parent_template = None
    pass
    parent_template = environment.get_template('base.html', 'logs.html')
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
    yield 'logs.log · '
    yield escape((undefined(name='site_title') if l_0_site_title is missing else l_0_site_title))

def block_crumbs(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass
    yield ' <span class="sep">/</span> <span aria-current="page">logs.log</span>'

def block_main(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_log = resolve('log')
    l_0_records_html = resolve('records_html')
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
        t_3 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    pass
    yield '\n<h1>logs.log</h1>\n<p class="lsummary">'
    yield escape(t_2(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'lines')))
    yield ' line'
    yield escape(('s' if (environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'lines') != 1) else cond_expr_undefined("the inline if-expression on line 6 in 'logs.html' evaluated to false and no else section was defined.")))
    yield ', '
    yield escape(t_2(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'records')))
    yield ' record'
    yield escape(('s' if (environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'records') != 1) else cond_expr_undefined("the inline if-expression on line 6 in 'logs.html' evaluated to false and no else section was defined.")))
    if environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'n_starts'):
        pass
        yield ', '
        yield escape(t_2(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'n_starts')))
        yield ' start'
        yield escape(('s' if (environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'n_starts') != 1) else cond_expr_undefined("the inline if-expression on line 6 in 'logs.html' evaluated to false and no else section was defined.")))
    yield '.'
    for (l_1_cls, l_1_word) in (('error', 'error'), ('warning', 'warning')):
        _loop_vars = {}
        pass
        if t_3(environment.getitem(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'first'), l_1_cls)):
            pass
            yield ' <a href="#L'
            yield escape(environment.getitem(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'first'), l_1_cls))
            yield '">first '
            yield escape(l_1_word)
            yield '</a> (line '
            yield escape(environment.getitem(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'first'), l_1_cls))
            yield ').'
    l_1_cls = l_1_word = missing
    yield '</p>\n'
    if environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'left_out_records'):
        pass
        yield '<p class="lsummary subtle">The log is long: this page shows its start, its warnings, errors and starts, and its end; '
        yield escape(t_2(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'left_out_lines')))
        yield ' lines ('
        yield escape(t_2(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'left_out_records')))
        yield ' records'
        if environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'left_out_notable'):
            pass
            yield ', '
            yield escape(t_2(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'left_out_notable')))
            yield ' of them warnings or errors'
        yield ") are left out. The whole log is <code>logs.log</code> in the run's folder.</p>"
    yield '\n'
    if environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'cut_records'):
        pass
        yield '<p class="lsummary subtle">'
        yield escape(t_2(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'cut_records')))
        yield ' record'
        yield escape(('s' if (environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'cut_records') != 1) else cond_expr_undefined("the inline if-expression on line 9 in 'logs.html' evaluated to false and no else section was defined.")))
        yield ' too long to show whole end'
        yield escape(('s' if (environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'cut_records') == 1) else cond_expr_undefined("the inline if-expression on line 9 in 'logs.html' evaluated to false and no else section was defined.")))
        yield ' with the count of characters left out.</p>'
    yield '\n'
    if (environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'n_starts') > 1):
        pass
        yield '\n<nav class="lstarts" aria-label="starts of the run"><h2>Starts</h2><ol>\n'
        for (l_1_line, l_1_command) in environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'starts'):
            _loop_vars = {}
            pass
            yield '<li><a href="#L'
            yield escape(l_1_line)
            yield '">line '
            yield escape(l_1_line)
            yield '</a> <code>'
            yield escape(l_1_command)
            yield '</code></li>\n'
        l_1_line = l_1_command = missing
        yield '</ol>'
        if (environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'n_starts') > t_1(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'starts'))):
            pass
            yield '<p class="subtle">and '
            yield escape(t_2((environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'n_starts') - t_1(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'starts')))))
            yield ' more, not shown</p>'
        yield '</nav>\n'
    yield '\n'
    if (t_1(environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'classes')) > 1):
        pass
        yield '\n<fieldset class="lfilter"><legend>Show</legend>\n'
        for (l_1_cls, l_1_n) in environment.getattr((undefined(name='log') if l_0_log is missing else l_0_log), 'classes'):
            _loop_vars = {}
            pass
            yield '<label><input type="checkbox" id="lvf-'
            yield escape(l_1_cls)
            yield '" checked> '
            yield escape(l_1_cls)
            yield ' ('
            yield escape(t_2(l_1_n))
            yield ')</label>\n'
        l_1_cls = l_1_n = missing
        yield '</fieldset>\n'
    yield '\n<div class="lrecords">\n'
    yield escape((undefined(name='records_html') if l_0_records_html is missing else l_0_records_html))
    yield '\n</div>\n'

blocks = {'title': block_title, 'crumbs': block_crumbs, 'main': block_main}
debug_info = '1=12&2=17&3=29&4=39&6=68&7=82&8=96&9=110&10=120&12=123&13=135&15=142&17=145&21=158'