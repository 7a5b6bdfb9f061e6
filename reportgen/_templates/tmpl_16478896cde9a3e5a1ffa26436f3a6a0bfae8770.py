from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = '_charts.html'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_charts = resolve('charts')
    try:
        t_1 = environment.filters['thousands']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'thousands' found.")
    pass
    if environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'enabled'):
        pass
        yield '\n<div class="rg-charts-head">\n  <h2>Charts</h2>\n  <p class="rg-downloads">Download the '
        yield escape(t_1(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'n_metrics')))
        yield ' metric'
        yield escape(('' if (environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'n_metrics') == 1) else 's'))
        yield ' of '
        yield escape(t_1(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'n_rows')))
        yield ' '
        yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'word'))
        yield escape(('' if (environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'n_rows') == 1) else 's'))
        yield ':\n  '
        l_1_loop = missing
        for l_1_d, l_1_loop in LoopContext(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'downloads'), undefined):
            _loop_vars = {}
            pass
            yield '<a href="'
            yield escape(environment.getattr(l_1_d, 'href'))
            yield '" download>'
            yield escape(environment.getattr(l_1_d, 'href'))
            yield '</a> <span class="subtle">('
            yield escape(environment.getattr(l_1_d, 'size'))
            yield ')</span>'
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ' · '
        l_1_loop = l_1_d = missing
        yield '</p>\n  <noscript><p class="note">The charts and the metric explorer need JavaScript; the tables below hold the same numbers, and the downloads every metric.</p></noscript>\n</div>\n'
        if environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'panels'):
            pass
            yield '\n<p class="rg-hint subtle">Hover a chart (or tap it) for exact values; click (tap again) to open that '
            yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'word'))
            yield "'s texts. From the keyboard: Tab to a chart, <kbd>←</kbd> <kbd>→</kbd> (<kbd>Home</kbd> <kbd>End</kbd>) move between "
            yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'word'))
            yield 's, <kbd>Enter</kbd> opens one.\n'
            if environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'legend'):
                pass
                yield '<span class="rg-legend">'
                for (l_1_key, l_1_text) in environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'legend'):
                    _loop_vars = {}
                    pass
                    yield '<span class="rg-key rg-key-'
                    yield escape(l_1_key)
                    yield '"><span class="rg-sym" aria-hidden="true"></span>'
                    yield escape(l_1_text)
                    yield '</span>'
                l_1_key = l_1_text = missing
                yield '</span>'
            yield '</p>\n<div class="rg-grid">\n'
            for l_1_p in environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'panels'):
                _loop_vars = {}
                pass
                yield '\n  <figure class="rg-chart'
                if (environment.getattr(l_1_p, 'kind') == 'eval'):
                    pass
                    yield ' rg-eval'
                yield '" id="chart-'
                yield escape(environment.getattr(l_1_p, 'id'))
                yield '" data-chart="'
                yield escape(environment.getattr(l_1_p, 'id'))
                yield '">\n    <figcaption><code class="rg-title">'
                yield escape(environment.getattr(l_1_p, 'title'))
                yield '</code>'
                if environment.getattr(l_1_p, 'note'):
                    pass
                    yield ' <span class="subtle">('
                    yield escape(environment.getattr(l_1_p, 'note'))
                    yield ')</span>'
                yield '<span class="rg-series"></span></figcaption>\n    <div class="rg-plot" tabindex="0" role="group" aria-label="chart of '
                yield escape(environment.getattr(l_1_p, 'title'))
                yield ': arrow keys move between '
                yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'word'))
                yield 's, Enter opens one"><p class="rg-status subtle">drawing…</p></div>\n  </figure>\n'
            l_1_p = missing
            yield '\n</div>\n'
        else:
            pass
            yield '\n<p class="subtle">None of the usual training metrics holds a value in this run; the explorer below shows every metric.</p>\n'
        yield '\n\n<section class="rg-explorer" id="explorer" aria-label="Metric explorer">\n  <h2>Metric explorer</h2>\n  <div class="rg-explorer-body">\n    <div class="rg-picker">\n      <input type="search" id="rg-search" placeholder="Search '
        yield escape(t_1(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'n_metrics')))
        yield ' metrics" aria-label="Search metrics" autocomplete="off" spellcheck="false">\n      <div class="rg-picker-actions subtle"><span id="rg-picked-count">none picked</span> <button type="button" id="rg-clear" class="rg-btn">clear</button></div>\n      <div id="rg-metric-list" class="rg-metric-list" role="group" aria-label="Metrics"></div>\n    </div>\n    <div class="rg-explorer-main">\n      <div class="rg-controls">\n        <label>smoothing (EMA) <input type="range" id="rg-smooth" min="0" max="0.99" step="0.01" value="0"> <output id="rg-smooth-out" for="rg-smooth">off</output></label>\n        <label><input type="checkbox" id="rg-log"> log scale</label>\n        <label>x axis <select id="rg-xmode">\n          <option value="step">'
        yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'word'))
        yield '</option>\n          '
        if environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'has_times'):
            pass
            yield '<option value="time">wall time</option><option value="elapsed">elapsed hours</option>'
        yield '\n        </select></label>\n      </div>\n      <p class="rg-series" id="rg-explorer-legend"></p>\n      <div class="rg-plot rg-plot-big" id="rg-explorer-plot" tabindex="0" role="group" aria-label="chart of the picked metrics: arrow keys move between '
        yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'word'))
        yield 's, Enter opens one"><p class="rg-status subtle">Pick one or more metrics to chart them.</p></div>\n      <p class="rg-note subtle" id="rg-explorer-note"></p>\n    </div>\n  </div>\n</section>\n<div id="rg-tip" class="rg-tip" hidden></div>\n<div id="rg-msg" class="rg-msg" hidden></div>\n<div id="rg-said" class="vh" role="status" aria-live="polite"></div>\n'
    else:
        pass
        yield '\n<p class="subtle">No metric was logged in this run.</p>\n'

blocks = {}
debug_info = '2=18&5=21&6=31&9=46&10=49&11=53&13=67&14=71&15=79&16=87&28=97&37=99&38=101&42=105'