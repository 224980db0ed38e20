#!/bin/sh
# bench-plot.sh SERIES: an SVG plot (on stdout) of the tree-kill series that bench.sh
# measures, time against tree size, both on log scales, one line per tool.  SERIES has lines
# "TOOL SIZE MEDIAN-MS LEFT"; a point whose run left processes alive is drawn hollow.  No
# plotting package: awk writes the SVG.
set -eu
awk '
function lx(v) { return 70 + (log(v) / log(10) - 1) / 3 * 480 }         # sizes 10 .. 10,000
function ly(v) { if (v < 1) v = 1; return 330 - (log(v) / log(10)) / 4 * 300 } # 1 ms .. 10 s
{
	tool[$1] = 1; x[$1, ++n[$1]] = $2; y[$1, n[$1]] = $3; left[$1, n[$1]] = $4
}
END {
	split("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e", colour, " ")
	print "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"380\" font-family=\"sans-serif\" font-size=\"12\">"
	print "<rect width=\"720\" height=\"380\" fill=\"white\"/>"
	print "<text x=\"320\" y=\"18\" text-anchor=\"middle\">Tree kill: deadline to return (ms), by tree size</text>"
	for (e = 1; e <= 4; e++) {
		v = 10 ^ e; gx = lx(v)
		printf "<line x1=\"%.1f\" y1=\"30\" x2=\"%.1f\" y2=\"330\" stroke=\"#ddd\"/>\n", gx, gx
		printf "<text x=\"%.1f\" y=\"348\" text-anchor=\"middle\">%d</text>\n", gx, v
	}
	for (e = 0; e <= 4; e++) {
		v = 10 ^ e; gy = ly(v)
		printf "<line x1=\"70\" y1=\"%.1f\" x2=\"550\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", gy, gy
		printf "<text x=\"64\" y=\"%.1f\" text-anchor=\"end\">%d</text>\n", gy + 4, v
	}
	print "<text x=\"310\" y=\"368\" text-anchor=\"middle\">processes in the tree</text>"
	k = 0
	for (t in tool) order[++k] = t
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (order[j] < order[i]) { s = order[i]; order[i] = order[j]; order[j] = s }
	for (i = 1; i <= k; i++) {
		t = order[i]; c = colour[(i - 1) % 5 + 1]; pts = ""
		for (p = 1; p <= n[t]; p++) pts = pts sprintf("%.1f,%.1f ", lx(x[t, p]), ly(y[t, p]))
		printf "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", pts, c
		for (p = 1; p <= n[t]; p++)
			printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"%s\"/>\n", lx(x[t, p]), ly(y[t, p]), (left[t, p] > 0 ? "white" : c), c
		printf "<text x=\"560\" y=\"%d\" fill=\"%s\">%s</text>\n", 40 + 16 * i, c, t
	}
	printf "<text x=\"560\" y=\"%d\" fill=\"#555\">hollow: left some</text>\n", 40 + 16 * (k + 1)
	print "</svg>"
}' "$1"
