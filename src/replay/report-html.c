// SPDX-License-Identifier: GPL-3.0-or-later
#include "report-html.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	".note{color:#555}";

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

static void
head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>", f);
	put_html(f, title);
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>", style);
	put_html(f, title);
	fputs("</h1>\n", f);
}

static void
tail(FILE *f)
{
	fprintf(f, "<script>%s</script>\n</body></html>\n", script);
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
		for (size_t j = 0; j < r->n; j++)
			if (r->m[j].status >= REPORT_WARN) {
				fputc('[', f);
				put_html(f, r->m[j].rule);
				fprintf(f, ": %s] ",
					report_status_name(r->m[j].status));
			}
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
		fputs("<p class=\"damage\">damaged, used up to the damage: ", f);
		put_html(f, in->damage);
		fputs("</p>\n", f);
	}
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
	head(f, "baro-replay report");
	struct report_filter_tally *t = calloc(n ? n : 1, sizeof(*t));
	if (!t) {
		atomic_file_abort(&af);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	size_t nt = report_tally_filters(res, n, t, n);
	size_t ntest = 0;
	for (size_t k = 0; k < nt; k++)
		ntest += t[k].under_test;
	fprintf(f, "<p class=\"note\">%zu runs. %s</p>\n", n,
		ntest ? "The filters under test (-f) decide the exit status; "
			"baselines are shown, not judged."
		      : "Exploratory run: no filter under test (-f), nothing "
			"judged.");
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
	fputs("</tbody></table>\n<h2>Inputs</h2>\n<ul>\n", f);
	free(t);
	for (size_t i = 0; i < nsources; i++) {
		char page[2 * REPORT_NAME_LEN];
		page_name(sources[i], page, sizeof(page));
		fprintf(f, "<li><a href=\"cases/%s.html\">", page);
		put_html(f, sources[i]);
		fputs("</a></li>\n", f);
	}
	for (size_t i = 0; i < ninputs; i++) {
		if (inputs[i].used)
			continue;
		fputs("<li>", f);
		put_html(f, inputs[i].source);
		fputs(": not used, ", f);
		put_html(f, inputs[i].outcome);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n<p><a href=\"summary.csv\">summary.csv</a> "
	      "<a href=\"summary.json\">summary.json</a> "
	      "<a href=\"summary.txt\">summary.txt</a></p>\n"
	      "<h2>Runs</h2>\n<p class=\"note\">Click a heading to sort.</p>\n",
	      f);
	runs_table(f, res, n, NULL, true);
	tail(f);
	return atomic_file_commit(&af, err, errlen);
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
	head(f, source);
	fputs("<p><a href=\"../index.html\">all runs</a></p>\n", f);
	if (in)
		input_notes(f, in);
	else
		fputs("<p class=\"input\">the synthetic stream: the emulator "
		      "flying each scenario's truth profile</p>\n", f);
	runs_table(f, res, n, source, false);
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
		fputs("<h2>", f);
		put_html(f, res[i].scenario);
		fputs("</h2>\n", f);
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
	tail(f);
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
