// SPDX-License-Identifier: GPL-3.0-or-later
#include "report-html.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-zoom.h"
#include "util-atomic-file.h"
#include "util-strings.h"

/* Text as HTML: the five characters that could end an element or an
 * attribute, escaped. */
static void
put_html(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
}

/* Each rule r warned or failed on, "OPEN rule: STATUSCLOSE", escaped:
 * the runs table's and the matrix's lists say it alike. */
static void
put_warned(FILE *f, const struct report_result *r, const char *open,
	   const char *close)
{
	for (size_t j = 0; j < r->n; j++) {
		if (r->m[j].status < REPORT_WARN)
			continue;
		fputs(open, f);
		put_html(f, r->m[j].rule);
		fprintf(f, ": %s%s", report_status_name(r->m[j].status),
			close);
	}
}

/* A relative link to a report file: its name is made only of
 * [A-Za-z0-9._-] (report_case_name), which needs no escaping. */
static void
page_name(const char *source, char *out, size_t len)
{
	report_case_name(source, "", out, len);
	size_t n = strlen(out);
	/* report_case_name joins with "--"; an input's page drops it. */
	if (n >= 2 && strcmp(out + n - 2, "--") == 0)
		out[n - 2] = '\0';
}

static const char *const style =
	"body{font:14px sans-serif;margin:1.5em;color:#222}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}"
	"th{background:#eee;cursor:pointer;position:sticky;top:0}"
	"td.t,th.t{text-align:left}"
	".pass{background:#c8ecc8}.warn{background:#ffe7a0}"
	".fail{background:#f6b8b8}.unchecked{background:#e4e4e4}"
	"tr.baseline td{color:#666}"
	"img{max-width:100%;border:1px solid #ccc}"
	".note{color:#555}"
	"nav{margin:.5em 0 1em}"
	"#mtable{font-size:13px}#mtable th,#mtable td{padding:2px 4px}"
	"#mtable td.cell{text-align:center;min-width:3.6em}"
	"#mtable td.cell a{color:#222;text-decoration:none;display:block}"
	"#mtable td.base{opacity:.6}"
	".cnt{font-size:11px;color:#444}"
	".v{padding:0 4px}"
	"section.input h3,section.cell-runs h3{margin:.8em 0 .2em}"
	".scens a{margin-right:.6em;white-space:nowrap;line-height:1.7}"
	"a.up{font-size:12px;font-weight:normal}"
	":target{outline:2px solid #4a90d9}"
	".zplot{margin:.5em 0;min-height:420px}"
	".zplot .u-legend{font-size:12px;text-align:left}";

/* Sort the table with id "runs" by a column: click a heading, or open
 * index.html#sort=NAME.  Numbers by value (data-v), text as text; the
 * body's data-ready says the script ran, data-errors what failed. */
static const char *const script =
	"(function(){"
	"var errs=[];window.onerror=function(m){errs.push(String(m));"
	"document.body.setAttribute('data-errors',errs.join(' | '));};"
	"function key(td){var v=td.getAttribute('data-v');"
	"return v===null?td.textContent:(v===''?NaN:parseFloat(v));}"
	"function sortBy(t,i,desc){var b=t.tBodies[0];"
	"var rows=Array.prototype.slice.call(b.rows);"
	"rows.sort(function(x,y){var a=key(x.cells[i]),c=key(y.cells[i]);"
	"var r;if(typeof a==='number'&&typeof c==='number'){"
	"if(isNaN(a))return isNaN(c)?0:1;if(isNaN(c))return -1;r=a-c;}"
	"else r=String(a).localeCompare(String(c));return desc?-r:r;});"
	"rows.forEach(function(r){b.appendChild(r);});"
	"t.setAttribute('data-sorted',t.tHead.rows[0].cells[i]"
	".getAttribute('data-c')+(desc?' desc':''));}"
	"var ts=document.querySelectorAll('table.sortable');"
	"Array.prototype.forEach.call(ts,function(t){"
	"Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){"
	"th.addEventListener('click',function(){var s=t.getAttribute("
	"'data-sorted')||'';sortBy(t,i,s===th.getAttribute('data-c'));});"
	"});});"
	"var m=/sort=([A-Za-z0-9_]+)/.exec(location.hash),t=document."
	"getElementById('runs');if(m&&t){var hs=t.tHead.rows[0].cells;"
	"for(var i=0;i<hs.length;i++)if(hs[i].getAttribute('data-c')===m[1])"
	"sortBy(t,i,false);}"
	"document.body.setAttribute('data-ready','1');})();";

/* uPlot 1.6.32 (vendor/uplot, MIT, from npm), embedded at build time by
 * vendor/embed-file.c. */
extern const unsigned char report_uplot_js[], report_uplot_css[];
extern const size_t report_uplot_js_len, report_uplot_css_len;

/* An input's page: each .zplot draws the JSON beside it (zoom_plot())
 * with uPlot.  The input's dots, truth, reference (named, its median
 * offset taken off), each filter (under test bold), and what each
 * flagged as dots in a band below the data (the y range leaves its
 * bottom fifth free for them, unlabelled); faults shaded.  Wheel zooms at the
 * pointer, shift+wheel and shift+drag pan, a drag zooms to its span,
 * double-click resets.  Each plot's element carries its visible range
 * (data-x-min, data-x-max) and the body data-plots the count drawn, for
 * a test to read; errors go to data-errors as the sorting script's do. */
static const char *const plot_script =
	"(function(){"
	"var tc=['#d62728','#1f77b4','#2ca02c','#9467bd','#ff7f0e','#e377c2'],"
	"bc=['#8c8c3c','#5fa8b8','#b08060','#a08cc0','#c89090','#70a070',"
	"'#c0a040','#6080a0'];"
	"function num(v){return Math.abs(v)>=1e6?v.toPrecision(3):"
	"(Math.round(v*1000)/1000).toString();}"
	"function mark(u){var el=u.root.parentNode;"
	"el.setAttribute('data-x-min',u.scales.x.min);"
	"el.setAttribute('data-x-max',u.scales.x.max);}"
	"function setX(u,lo,hi){var t=u.data[0],a=t[0],b=t[t.length-1];"
	"var w=hi-lo;if(w>=b-a){lo=a;hi=b;}else{"
	"if(lo<a){hi+=a-lo;lo=a;}if(hi>b){lo-=hi-b;hi=b;}}"
	"u.setScale('x',{min:lo,max:hi});}"
	"function interact(u){var o=u.over;"
	"o.addEventListener('wheel',function(e){e.preventDefault();"
	"var r=o.getBoundingClientRect(),lo=u.scales.x.min,hi=u.scales.x.max,"
	"w=hi-lo;if(e.shiftKey||Math.abs(e.deltaX)>Math.abs(e.deltaY)){"
	"var d=(e.shiftKey?e.deltaY||e.deltaX:e.deltaX)/r.width*w;"
	"setX(u,lo+d,hi+d);return;}"
	"var at=u.posToVal(e.clientX-r.left,'x'),k=e.deltaY<0?0.8:1.25;"
	"setX(u,at-(at-lo)*k,at+(hi-at)*k);},{passive:false});"
	"var pan=null;o.addEventListener('mousedown',function(e){"
	"if(!e.shiftKey)return;e.stopImmediatePropagation();e.preventDefault();"
	"pan={x:e.clientX,lo:u.scales.x.min,hi:u.scales.x.max};},true);"
	"document.addEventListener('mousemove',function(e){if(!pan)return;"
	"var d=(pan.x-e.clientX)/o.getBoundingClientRect().width*"
	"(pan.hi-pan.lo);setX(u,pan.lo+d,pan.hi+d);});"
	"document.addEventListener('mouseup',function(){pan=null;});}"
	"function shade(f){return function(u){var c=u.ctx,b=u.bbox;c.save();"
	"c.fillStyle='rgba(255,112,112,0.3)';f.forEach(function(w){"
	"var x0=Math.max(u.valToPos(w[0],'x',true),b.left),"
	"x1=Math.min(u.valToPos(w[1],'x',true),b.left+b.width);"
	"if(x1<b.left||x0>b.left+b.width)return;"
	"c.fillRect(x0,b.top,Math.max(x1-x0,2),b.height);});c.restore();};}"
	"function draw(el,j){var d=j.d,n=j.names.length,nt=0,nb=0;"
	"var dots=function(){return null;};"
	"var s=[{label:'time from log start (s)',"
	"value:function(u,v){return v==null?'-':v.toFixed(3);}},"
	"{label:'input',stroke:'#999',width:1,paths:dots,"
	"points:{show:true,size:3,fill:'#999',stroke:'#999'}},"
	"{label:'truth: '+j.truth,stroke:'#000',width:2}];"
	"var data=[d.t,d['in'],d.truth];"
	"if(j.ref&&d.ref.some(function(v){return v!==null;})){"
	"s.push({label:'reference '+j.ref+(d.ref_off!==null&&"
	"Math.abs(d.ref_off)>=0.1?' '+(d.ref_off>0?'-':'+')+"
	"Math.abs(d.ref_off).toFixed(2)+' m':''),stroke:'#555',width:1,"
	"dash:[6,4]});data.push(d.ref);}"
	"var col=[];for(var k=0;k<n;k++)col.push(j.test[k]?tc[nt++%tc.length]"
	":bc[nb++%bc.length]);"
	"for(k=0;k<n;k++){s.push({label:j.names[k],stroke:col[k],"
	"width:j.test[k]?2.5:1.2,dash:j.test[k]?undefined:[4,3]});"
	"data.push(d.alt[k]);}"
	"for(k=0;k<n;k++){s.push({label:'flagged: '+j.names[k],scale:'flag',"
	"stroke:col[k],width:1,paths:dots,points:{show:true,size:5,"
	"fill:col[k],stroke:col[k]},value:function(u,v){return v==null?"
	"'':'yes';}});var lv=k+1;data.push(d.flag[k].map(function(f){"
	"return f?lv:null;}));}"
	"var w=Math.max(el.clientWidth||1000,400);"
	"var u=new uPlot({width:w,height:380,series:s,"
	"scales:{x:{time:false},y:{range:function(u,lo,hi){"
	"var d=hi-lo||1;return[lo-0.3*d,hi+0.05*d];}},"
	"flag:{auto:false,range:[0,(n+1)*5]}},"
	"axes:[{label:'time from log start (s)'},"
	"{label:'altitude (m)',values:function(u,t){var y=u.scales.y,"
	"c=y.min+0.3*(y.max-y.min)/1.35-1e-9;return t.map(function(v){"
	"return v<c?'':num(v);});},"
	"size:70}],"
	"cursor:{drag:{x:true,y:false}},"
	"hooks:{drawClear:[shade(d.faults)],setScale:[function(u,k){"
	"if(k==='x')mark(u);}],ready:[mark]}},data,el);"
	"interact(u);el.uplot=u;return u;}"
	"var n=0;Array.prototype.forEach.call(document.querySelectorAll("
	"'.zplot'),function(el){var j=JSON.parse(document.getElementById("
	"'d-'+el.id.slice(2)).textContent);if(!j.d||j.d.t.length<2){"
	"el.textContent='No zoomable plot: '+(j.error||'fewer than two rows');"
	"el.style.minHeight='0';return;}draw(el,j);n++;});"
	"document.body.setAttribute('data-plots',String(n));})();";

static void
head(FILE *f, const char *title, bool plots)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>", f);
	put_html(f, title);
	fprintf(f, "</title><style>%s</style>", style);
	if (plots) {
		fputs("<style>", f);
		fwrite(report_uplot_css, 1, report_uplot_css_len, f);
		fputs("</style>", f);
	}
	fputs("</head><body>\n<h1>", f);
	put_html(f, title);
	fputs("</h1>\n", f);
}

static void
tail(FILE *f, bool plots)
{
	fprintf(f, "<script>%s</script>\n", script);
	if (plots) {
		fputs("<script>", f);
		fwrite(report_uplot_js, 1, report_uplot_js_len, f);
		fprintf(f, "</script>\n<script>%s</script>\n", plot_script);
	}
	fputs("</body></html>\n", f);
}

static double
metric(const struct report_result *r, const char *name)
{
	for (size_t j = 0; j < r->n; j++)
		if (strcmp(r->m[j].name, name) == 0)
			return r->m[j].value;
	return NAN;
}

static const struct {
	const char *metric, *head;
} cols[] = {
	{ "rms_m", "rms (m)" },
	{ "max_abs_m", "max (m)" },
	{ "lag_s", "lag (s)" },
	{ "latency_max_s", "detect (s)" },
	{ "recall", "recall" },
	{ "fp_per_1000", "fp/1000" },
	{ "rejected_pct", "rejected %" },
	{ "ref_bias_m", "ref offset (m)" },
	{ "ref_sd_m", "ref sd (m)" },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* The runs table; with_source: the log column and links to its page. */
static void
runs_table(FILE *f, const struct report_result *res, size_t n,
	   const char *only_source, bool index)
{
	fprintf(f, "<table class=\"sortable\"%s><thead><tr>",
		index ? " id=\"runs\"" : "");
	if (index)
		fputs("<th class=\"t\" data-c=\"source\">log</th>", f);
	fputs("<th class=\"t\" data-c=\"scenario\">scenario</th>"
	      "<th class=\"t\" data-c=\"filter\">filter</th>"
	      "<th class=\"t\" data-c=\"role\">role</th>"
	      "<th class=\"t\" data-c=\"verdict\">verdict</th>", f);
	for (size_t c = 0; c < NCOLS; c++)
		fprintf(f, "<th data-c=\"%s\">%s</th>", cols[c].metric,
			cols[c].head);
	fputs("<th class=\"t\" data-c=\"why\">why</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct report_result *r = &res[i];
		if (only_source && strcmp(r->source, only_source) != 0)
			continue;
		const char *v = report_run_status_name(r);
		fprintf(f, "<tr class=\"run %s\">",
			r->under_test ? "under-test" : "baseline");
		if (index) {
			char page[2 * REPORT_NAME_LEN];
			page_name(r->source, page, sizeof(page));
			fprintf(f, "<td class=\"t\"><a href=\"cases/%s.html\">",
				page);
			put_html(f, r->source);
			fputs("</a></td>", f);
		}
		fputs("<td class=\"t\">", f);
		put_html(f, r->scenario);
		fputs("</td><td class=\"t\">", f);
		put_html(f, r->filter);
		fprintf(f, "</td><td class=\"t\">%s</td>"
			   "<td class=\"t verdict %s\">%s</td>",
			r->under_test ? "under test" : "baseline", v, v);
		for (size_t c = 0; c < NCOLS; c++) {
			double x = metric(r, cols[c].metric);
			char num[32];
			if (isfinite(x))
				fprintf(f, "<td data-v=\"%.9g\">%s</td>", x,
					report_number(num, sizeof(num), x, 3));
			else
				fputs("<td data-v=\"\">-</td>", f);
		}
		fputs("<td class=\"t\">", f);
		if (r->unchecked[0])
			put_html(f, r->unchecked);
		put_warned(f, r, "[", "] ");
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void
input_notes(FILE *f, const struct report_input *in)
{
	fputs("<p class=\"input\">", f);
	put_html(f, in->outcome);
	if (in->segment_note[0]) {
		fputs("; ", f);
		put_html(f, in->segment_note);
	}
	fputs("</p>\n", f);
	if (in->damage[0]) {
		fputs(in->cut_off ? "<p class=\"damage cut-off\">its last "
				    "record is cut off (as after a power "
				    "loss), used up to it: "
				  : "<p class=\"damage\">damaged, used up to "
				    "the damage: ", f);
		put_html(f, in->damage);
		fputs("</p>\n", f);
	}
}

/* A JSON string inside a <script> element: '<' as \u003c, so no text
 * can end the element. */
static void
put_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The distinct values of a text field of res, in first order. */
static size_t
distinct(const struct report_result *res, size_t n, size_t off,
	 const char **out)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const char *v = *(const char *const *)((const char *)&res[i] +
						       off);
		bool seen = false;
		for (size_t j = 0; j < m && !seen; j++)
			seen = strcmp(out[j], v) == 0;
		if (!seen)
			out[m++] = v;
	}
	return m;
}

/* Worst first: fail, warn, pass, then unchecked (nothing judged). */
static enum report_status
worse(enum report_status a, enum report_status b)
{
	return a == REPORT_NONE ? b : b == REPORT_NONE ? a : a > b ? a : b;
}

/* The summary matrix: a row per filter, a column per scenario, each
 * cell the worst verdict over the inputs with its counts, linking to
 * the list of those cases below it (#m-F-S). */
static void
matrix(FILE *f, const struct report_result *res, size_t n,
       const char *const *filters, const bool *test, size_t nf,
       const char *const *scens, size_t nsc)
{
	fputs("<h2 id=\"matrix\">Filters &times; scenarios</h2>\n"
	      "<p class=\"note\">Each cell: the filter's worst verdict on "
	      "that scenario over every input, and how many runs passed, "
	      "warned, failed or were unchecked "
	      "(<span class=\"cnt\">pass&middot;warn&middot;fail&middot;"
	      "unchecked</span>); click it for those runs. Baselines are "
	      "shown, not judged.</p>\n"
	      "<table id=\"mtable\"><thead><tr><th class=\"t\">filter</th>"
	      "<th class=\"t\">role</th>", f);
	for (size_t s = 0; s < nsc; s++) {
		fputs("<th class=\"t\">", f);
		put_html(f, scens[s]);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (size_t k = 0; k < nf; k++) {
		fputs("<tr><td class=\"t\">", f);
		put_html(f, filters[k]);
		fprintf(f, "</td><td class=\"t\">%s</td>",
			test[k] ? "under test" : "baseline");
		for (size_t s = 0; s < nsc; s++) {
			size_t c[4] = { 0 }, runs = 0;
			enum report_status w = REPORT_NONE;
			for (size_t i = 0; i < n; i++)
				if (strcmp(res[i].filter, filters[k]) == 0 &&
				    strcmp(res[i].scenario, scens[s]) == 0) {
					c[res[i].status]++;
					w = worse(w, res[i].status);
					runs++;
				}
			if (!runs) {
				fputs("<td class=\"cell\">-</td>", f);
				continue;
			}
			const char *v = w == REPORT_NONE ? "unchecked"
							 : report_status_name(w);
			fprintf(f, "<td class=\"t cell %s%s\" data-runs=\"%zu\">"
				   "<a href=\"#m-%zu-%zu\">%s<br><span "
				   "class=\"cnt\">%zu&middot;%zu&middot;%zu"
				   "&middot;%zu</span></a></td>",
				v, test[k] ? "" : " base", runs, k, s, v,
				c[REPORT_PASS], c[REPORT_WARN], c[REPORT_FAIL],
				c[REPORT_NONE]);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* Under the matrix, a cell's runs: each a link to its case on its
 * input's page. */
static void
cell_lists(FILE *f, const struct report_result *res, size_t n,
	   const char *const *filters, size_t nf, const char *const *scens,
	   size_t nsc)
{
	fputs("<h2 id=\"cells\">Runs by filter and scenario</h2>\n", f);
	for (size_t k = 0; k < nf; k++)
		for (size_t s = 0; s < nsc; s++) {
			bool any = false;
			for (size_t i = 0; i < n; i++) {
				const struct report_result *r = &res[i];
				if (strcmp(r->filter, filters[k]) != 0 ||
				    strcmp(r->scenario, scens[s]) != 0)
					continue;
				if (!any) {
					fprintf(f, "<section class=\"cell-runs\" "
						   "id=\"m-%zu-%zu\"><h3>", k, s);
					put_html(f, filters[k]);
					fputs(" &times; ", f);
					put_html(f, scens[s]);
					fputs(" <a class=\"up\" href=\"#matrix\">"
					      "(matrix)</a></h3><ul>\n", f);
					any = true;
				}
				char page[2 * REPORT_NAME_LEN];
				char name[2 * REPORT_NAME_LEN];
				page_name(r->source, page, sizeof(page));
				report_case_name(r->source, r->scenario, name,
						 sizeof(name));
				const char *v = report_run_status_name(r);
				fprintf(f, "<li><span class=\"v %s\">%s</span> "
					   "<a href=\"cases/%s.html#case-%s\">",
					v, v, page, name);
				put_html(f, r->source);
				fputs("</a>", f);
				if (r->unchecked[0]) {
					fputs(": ", f);
					put_html(f, r->unchecked);
				}
				put_warned(f, r, " [", "]");
				fputs("</li>\n", f);
			}
			if (any)
				fputs("</ul></section>\n", f);
		}
}

static void
input_section(FILE *f, const char *source, const struct report_input *in,
	      const struct report_result *res, size_t n)
{
	char page[2 * REPORT_NAME_LEN];
	page_name(source, page, sizeof(page));
	fprintf(f, "<section class=\"input\" id=\"in-%s\"><h3>"
		   "<a href=\"cases/%s.html\">", page, page);
	put_html(f, source);
	fputs("</a></h3>\n", f);
	if (in)
		input_notes(f, in);
	/* Its scenarios: the worst verdict of the filters under test (of
	 * every filter when none is), each a link to its case. */
	fputs("<p class=\"scens\">", f);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(res[i].source, source) != 0 ||
		    (i > 0 && strcmp(res[i - 1].source, source) == 0 &&
		     strcmp(res[i - 1].scenario, res[i].scenario) == 0))
			continue;
		bool any_test = false;
		enum report_status w = REPORT_NONE;
		for (size_t j = i; j < n && strcmp(res[j].source, source) == 0 &&
				   strcmp(res[j].scenario, res[i].scenario) == 0;
		     j++)
			any_test |= res[j].under_test;
		for (size_t j = i; j < n && strcmp(res[j].source, source) == 0 &&
				   strcmp(res[j].scenario, res[i].scenario) == 0;
		     j++)
			if (res[j].under_test || !any_test)
				w = worse(w, res[j].status);
		char name[2 * REPORT_NAME_LEN];
		report_case_name(source, res[i].scenario, name, sizeof(name));
		const char *v = w == REPORT_NONE ? "unchecked"
						 : report_status_name(w);
		fprintf(f, "<a class=\"v %s\" href=\"cases/%s.html#case-%s\">",
			v, page, name);
		put_html(f, res[i].scenario);
		fprintf(f, ": %s</a> ", v);
	}
	fputs("</p></section>\n", f);
}

static int
write_index(const char *dir, const struct report_result *res, size_t n,
	    const struct report_input *inputs, size_t ninputs,
	    const char *const *sources, size_t nsources, char *err,
	    size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/index.html", dir);
	struct atomic_file af;
	FILE *f = atomic_file_open(&af, path, err, errlen);
	if (!f)
		return -errno;
	head(f, "baro-replay report", false);
	struct report_filter_tally *t = calloc(n ? n : 1, sizeof(*t));
	const char **names = calloc(n ? n : 1, sizeof(*names));
	const char **scens = calloc(n ? n : 1, sizeof(*scens));
	bool *test = calloc(n ? n : 1, sizeof(*test));
	if (!t || !names || !scens || !test) {
		free(t);
		free(names);
		free(scens);
		free(test);
		atomic_file_abort(&af);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	size_t nt = report_tally_filters(res, n, t, n);
	size_t ntest = 0;
	for (size_t k = 0; k < nt; k++) {
		ntest += t[k].under_test;
		names[k] = t[k].filter;
		test[k] = t[k].under_test;
	}
	size_t nsc = distinct(res, n, offsetof(struct report_result, scenario),
			      scens);
	fprintf(f, "<p class=\"note\">%zu runs of %zu filters on %zu "
		   "scenarios and %zu inputs. %s</p>\n",
		n, nt, nsc, nsources,
		ntest ? "The filters under test (-f) decide the exit status; "
			"baselines are shown, not judged."
		      : "Exploratory run: no filter under test (-f), nothing "
			"judged.");
	fputs("<nav><a href=\"#matrix\">filters &times; scenarios</a> "
	      "&middot; <a href=\"#filters\">filters</a> &middot; "
	      "<a href=\"#inputs\">inputs</a> &middot; <a href=\"#cells\">"
	      "runs by cell</a> &middot; <a href=\"#all\">all runs</a> "
	      "&middot; <a href=\"summary.csv\">summary.csv</a> "
	      "<a href=\"summary.json\">summary.json</a> "
	      "<a href=\"summary.txt\">summary.txt</a></nav>\n", f);
	matrix(f, res, n, names, test, nt, scens, nsc);
	fputs("<h2>Filters</h2>\n<table id=\"filters\"><thead><tr>"
	      "<th class=\"t\">filter</th><th class=\"t\">role</th>"
	      "<th>runs</th><th>pass</th><th>warn</th><th>fail</th>"
	      "<th>unchecked</th><th class=\"t\">verdict</th></tr></thead>"
	      "<tbody>\n", f);
	for (size_t k = 0; k < nt; k++) {
		enum report_status v = report_filter_verdict(&t[k]);
		const char *vn = !t[k].under_test ? "not judged"
				 : v == REPORT_NONE ? "unchecked"
						    : report_status_name(v);
		fputs("<tr><td class=\"t\">", f);
		put_html(f, t[k].filter);
		fprintf(f, "</td><td class=\"t\">%s</td><td>%zu</td><td>%zu"
			   "</td><td>%zu</td><td>%zu</td><td>%zu</td>"
			   "<td class=\"t %s\">%s</td></tr>\n",
			t[k].under_test ? "under test" : "baseline", t[k].runs,
			t[k].counts[REPORT_PASS], t[k].counts[REPORT_WARN],
			t[k].counts[REPORT_FAIL], t[k].counts[REPORT_NONE],
			t[k].under_test && v != REPORT_NONE ? vn : "unchecked",
			vn);
	}
	fputs("</tbody></table>\n<h2 id=\"inputs\">Inputs</h2>\n", f);
	for (size_t i = 0; i < nsources; i++) {
		const struct report_input *in = NULL;
		for (size_t j = 0; j < ninputs; j++)
			if (strcmp(inputs[j].source, sources[i]) == 0)
				in = &inputs[j];
		input_section(f, sources[i], in, res, n);
	}
	for (size_t i = 0; i < ninputs; i++) {
		if (inputs[i].used)
			continue;
		fputs("<p class=\"unused\">", f);
		put_html(f, inputs[i].source);
		fputs(": not used, ", f);
		put_html(f, inputs[i].outcome);
		fputs("</p>\n", f);
	}
	cell_lists(f, res, n, names, nt, scens, nsc);
	free(t);
	free(names);
	free(scens);
	free(test);
	fputs("<h2 id=\"all\">All runs</h2>\n<p class=\"note\">Click a "
	      "heading to sort.</p>\n", f);
	runs_table(f, res, n, NULL, true);
	tail(f, false);
	return atomic_file_commit(&af, err, errlen);
}

/* The case's zoomable plot: its rows (report_zoom_json) and what the
 * page's script needs to name them, as JSON beside an empty element the
 * script draws into.  A case whose CSV cannot be read says so. */
static void
zoom_plot(FILE *f, const char *dir, const char *name,
	  const struct report_result *res, size_t k,
	  const struct report_input *in)
{
	char csv[4096];
	snprintf(csv, sizeof(csv), "%s/cases/%s.csv", dir, name);
	fprintf(f, "<div class=\"zplot\" id=\"z-%s\"></div>\n"
		   "<script type=\"application/json\" id=\"d-%s\">"
		   "{\"names\":[", name, name);
	for (size_t j = 0; j < k; j++) {
		if (j)
			fputc(',', f);
		put_json_str(f, res[j].filter);
	}
	fputs("],\"test\":[", f);
	for (size_t j = 0; j < k; j++)
		fprintf(f, "%s%d", j ? "," : "", res[j].under_test ? 1 : 0);
	fputs("],\"truth\":", f);
	put_json_str(f, in && in->truth[0] ? in->truth : "the profile");
	fputs(",\"ref\":", f);
	put_json_str(f, in && in->reference[0] ? in->reference : "");
	fputs(",\"d\":", f);
	char err[512];
	/* It writes nothing when it fails (it reads the CSV first). */
	if (report_zoom_json(f, csv, k, err, sizeof(err)) < 0) {
		fputs("null,\"error\":", f);
		put_json_str(f, err);
	}
	fputs("}</script>\n", f);
}

static int
write_page(const char *dir, const char *source, const struct report_result *res,
	   size_t n, const struct report_input *in, enum report_plot plot,
	   bool plot_all, char *err, size_t errlen)
{
	char path[4096], page[2 * REPORT_NAME_LEN];
	page_name(source, page, sizeof(page));
	snprintf(path, sizeof(path), "%s/cases/%s.html", dir, page);
	struct atomic_file af;
	FILE *f = atomic_file_open(&af, path, err, errlen);
	if (!f)
		return -errno;
	head(f, source, true);
	fprintf(f, "<nav><a href=\"../index.html\">report</a> &middot; "
		   "<a href=\"../index.html#matrix\">filters &times; "
		   "scenarios</a> &middot; <a href=\"../index.html#in-%s\">"
		   "this input in the report</a></nav>\n", page);
	if (in)
		input_notes(f, in);
	else
		fputs("<p class=\"input\">the synthetic stream: the emulator "
		      "flying each scenario's truth profile</p>\n", f);
	fputs("<p class=\"scens\">", f);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(res[i].source, source) != 0 ||
		    (i > 0 && strcmp(res[i - 1].source, source) == 0 &&
		     strcmp(res[i - 1].scenario, res[i].scenario) == 0))
			continue;
		char name[2 * REPORT_NAME_LEN];
		report_case_name(source, res[i].scenario, name, sizeof(name));
		fprintf(f, "<a href=\"#case-%s\">", name);
		put_html(f, res[i].scenario);
		fputs("</a> ", f);
	}
	fputs("</p>\n", f);
	runs_table(f, res, n, source, false);
	fputs("<p class=\"note\">In each plot: wheel zooms at the pointer, "
	      "shift+wheel or shift+drag pans, a drag zooms to its span, "
	      "double-click shows the whole log; a name in the key hides or "
	      "shows its line. Shaded: the injected faults; the dots along "
	      "the bottom: what each filter flagged (unhealthy or "
	      "rejected).</p>\n", f);
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(res[i].source, source) != 0 ||
		    (i > 0 && strcmp(res[i - 1].source, source) == 0 &&
		     strcmp(res[i - 1].scenario, res[i].scenario) == 0))
			continue;
		/* The case's results: the runs of its scenario that follow. */
		size_t k = 1;
		while (i + k < n && strcmp(res[i + k].source, source) == 0 &&
		       strcmp(res[i + k].scenario, res[i].scenario) == 0)
			k++;
		char name[2 * REPORT_NAME_LEN];
		report_case_name(source, res[i].scenario, name, sizeof(name));
		fprintf(f, "<h2 id=\"case-%s\">", name);
		put_html(f, res[i].scenario);
		fputs("</h2>\n", f);
		zoom_plot(f, dir, name, &res[i], k, in);
		const char *ext = plot == REPORT_PLOT_SVG ? "svg" : "png";
		if (plot != REPORT_PLOT_NONE &&
		    report_case_drawn(&res[i], k, first, plot_all))
			fprintf(f, "<p><img src=\"%s.%s\" alt=\"plot of %s\"></p>\n",
				name, ext, name);
		else if (plot != REPORT_PLOT_NONE)
			fprintf(f, "<p class=\"note undrawn\">Not drawn: no "
				   "filter under test warned or failed here "
				   "(--plots all draws every case). To draw "
				   "it: <code>cd cases &amp;&amp; gnuplot "
				   "%s.gp</code> makes %s.%s.</p>\n",
				name, name, ext);
		first = false;
		fprintf(f, "<p><a href=\"%s.csv\">%s.csv</a> (every row) "
			   "<a href=\"%s.gp\">%s.gp</a> (its plot)</p>\n",
			name, name, name, name);
	}
	tail(f, true);
	return atomic_file_commit(&af, err, errlen);
}

int
report_write_html(const char *dir, const struct report_result *res, size_t n,
		  const struct report_input *inputs, size_t ninputs,
		  enum report_plot plot, bool plot_all, char *err,
		  size_t errlen)
{
	/* The sources with runs, in their first order. */
	const char **src = calloc(n ? n : 1, sizeof(*src));
	size_t ns = 0;
	if (!src)
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (ns == 0 || strcmp(src[ns - 1], res[i].source) != 0) {
			bool seen = false;
			for (size_t j = 0; j < ns && !seen; j++)
				seen = strcmp(src[j], res[i].source) == 0;
			if (!seen)
				src[ns++] = res[i].source;
		}
	int rc = write_index(dir, res, n, inputs, ninputs, src, ns, err,
			     errlen);
	for (size_t s = 0; s < ns && rc == 0; s++) {
		const struct report_input *in = NULL;
		for (size_t i = 0; i < ninputs; i++)
			if (strcmp(inputs[i].source, src[s]) == 0)
				in = &inputs[i];
		rc = write_page(dir, src[s], res, n, in, plot, plot_all, err,
				errlen);
	}
	free(src);
	return rc;
}
