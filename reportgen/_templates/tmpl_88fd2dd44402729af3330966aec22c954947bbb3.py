from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'search.html'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    parent_template = None
    pass
    parent_template = environment.get_template('base.html', 'search.html')
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
    yield 'Search · '
    yield escape((undefined(name='site_title') if l_0_site_title is missing else l_0_site_title))

def block_head(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass
    yield '<link rel="stylesheet" href="assets/viewer.css">'

def block_body_class(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass
    yield 'search-page'

def block_crumbs(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass
    yield ' <span class="sep">/</span> <span aria-current="page">Search</span>'

def block_main(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    l_0_word = resolve('word')
    l_0_shards = resolve('shards')
    l_0_with_log = resolve('with_log')
    pass
    yield '\n<h1>Search every text of the run</h1>\n<form id="rs-form" class="viewer-bar" role="search" aria-label="Search the run" data-word="'
    yield escape((undefined(name='word') if l_0_word is missing else l_0_word))
    yield '" hidden>\n  <div class="bar-row">\n    <label class="search"><span class="vh">Search texts</span><input type="search" id="rs-q" placeholder="Search the prompts, completions, messages and tool calls of every '
    yield escape((undefined(name='word') if l_0_word is missing else l_0_word))
    yield '" autocomplete="off" spellcheck="false"></label>\n    <label class="chk"><input type="checkbox" id="rs-case"> match case</label>\n    <button type="button" id="rs-stop" disabled>stop</button>\n    <span id="rs-status"></span>\n  </div>\n  <p class="keys-hint">Keys: <kbd>/</kbd> to the search box, <kbd>Enter</kbd> searches at once, <kbd>Esc</kbd> leaves the box (the results stay).</p>\n</form>\n<noscript><p class="note">The search of every '
    yield escape((undefined(name='word') if l_0_word is missing else l_0_word))
    yield ' needs JavaScript. Without it, browser find (Ctrl+F) searches each page, which holds every text of its '
    yield escape((undefined(name='word') if l_0_word is missing else l_0_word))
    yield '.</p></noscript>\n<p class="subtle">It reads the texts of '
    yield escape(context.call(environment.getattr('{:,}', 'format'), (undefined(name='shards') if l_0_shards is missing else l_0_shards), _block_vars=_block_vars))
    yield ' '
    yield escape((undefined(name='word') if l_0_word is missing else l_0_word))
    yield escape(('' if ((undefined(name='shards') if l_0_shards is missing else l_0_shards) == 1) else 's'))
    if (undefined(name='with_log') if l_0_with_log is missing else l_0_with_log):
        pass
        yield ', then the records logs.html shows,'
    yield ' one after another, in this browser; nothing leaves it. A match opens its member with the page\'s search set to the same text.</p>\n<p id="rs-said" class="vh" aria-live="polite"></p>\n<div id="rs-results"></div>\n'

def block_scripts(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    _block_vars = {}
    pass
    yield '<script src="search_index.js"></script><script src="assets/match.js"></script><script src="assets/search.js"></script>'

blocks = {'title': block_title, 'head': block_head, 'body_class': block_body_class, 'crumbs': block_crumbs, 'main': block_main, 'scripts': block_scripts}
debug_info = '1=12&2=17&3=29&4=39&5=49&6=59&8=71&10=73&17=75&18=79&22=88'