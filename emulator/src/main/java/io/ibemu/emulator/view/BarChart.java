package io.ibemu.emulator.view;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A grouped bar chart as a self-contained SVG, for the benchmarks' figures: one group per
 * measure (pingpong, 64 KiB write...), one bar per system (ibemu, its peer, the floor), a value
 * over each bar, a linear or logarithmic axis. Plain SVG 1.1, no script, no fonts fetched.
 */
public final class BarChart {
    /** One figure: the measure it belongs to, the system that made it, the value. */
    public record Bar(String group, String series, double value) {
    }

    private static final String[] COLOURS = {"#1565c0", "#ef6c00", "#2e7d32", "#6a1b9a", "#c62828", "#546e7a"};
    private static final int BAR = 22;
    private static final int GAP = 26;
    private static final int LEFT = 70;
    private static final int TOP = 40;
    private static final int PLOT_HEIGHT = 240;
    private static final int BOTTOM = 70;

    private BarChart() {
    }

    /** Parses "GROUP\tSERIES\tVALUE" lines (blank lines and # comments skipped). */
    public static List<Bar> parse(List<String> lines) {
        List<Bar> bars = new ArrayList<>();
        for (String l : lines) {
            if (l.isBlank() || l.startsWith("#")) {
                continue;
            }
            String[] f = l.split("\t");
            if (f.length != 3) {
                throw new IllegalArgumentException("'" + l + "': expected GROUP<tab>SERIES<tab>VALUE");
            }
            bars.add(new Bar(f[0], f[1], Double.parseDouble(f[2])));
        }
        return bars;
    }

    public static String svg(String title, String unit, boolean log, List<Bar> bars) {
        Set<String> groups = new LinkedHashSet<>();
        Set<String> series = new LinkedHashSet<>();
        Map<String, Double> value = new LinkedHashMap<>();
        double max = 0;
        double min = Double.MAX_VALUE;
        for (Bar b : bars) {
            groups.add(b.group());
            series.add(b.series());
            value.put(b.group() + "\u0000" + b.series(), b.value());
            max = Math.max(max, b.value());
            if (b.value() > 0) {
                min = Math.min(min, b.value());
            }
        }
        if (bars.isEmpty()) {
            throw new IllegalArgumentException("nothing to plot");
        }
        List<String> ss = new ArrayList<>(series);
        // wide enough for its bars and for its label (about 6 px a character at 11 px)
        int groupWidth = Math.max(ss.size() * BAR + GAP, groups.stream().mapToInt(String::length).max().orElse(0) * 6 + 12);
        int width = Math.max(520, LEFT + groups.size() * groupWidth + 40);
        int height = TOP + PLOT_HEIGHT + BOTTOM + 20 * ((ss.size() + 3) / 4);
        Axis axis = log ? Axis.log(min, max) : Axis.linear(max);
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">%n",
                width, height, width, height));
        s.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", width, height));
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
                LEFT, esc(title)));
        for (double t : axis.ticks()) {
            double y = TOP + PLOT_HEIGHT - axis.scale(t) * PLOT_HEIGHT;
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eceff1\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#546e7a\">%s</text>%n",
                    LEFT, width - 20, y, y, LEFT - 6, y + 4, number(t)));
        }
        s.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
                + "text-anchor=\"middle\" fill=\"#546e7a\">%s%s</text>%n", TOP + PLOT_HEIGHT / 2, TOP + PLOT_HEIGHT / 2,
                esc(unit), log ? " (log scale)" : ""));
        int x = LEFT + (groupWidth - ss.size() * BAR) / 2;
        for (String g : groups) {
            for (int i = 0; i < ss.size(); i++) {
                Double v = value.get(g + "\u0000" + ss.get(i));
                if (v == null) {
                    continue;
                }
                double h = Math.max(0, axis.scale(v)) * PLOT_HEIGHT;
                double y = TOP + PLOT_HEIGHT - h;
                s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
                        + "fill=\"%s\"><title>%s %s: %s %s</title></rect>%n", x + i * BAR, y, BAR - 2, h,
                        COLOURS[i % COLOURS.length], esc(g), esc(ss.get(i)), number(v), esc(unit)));
                s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\" "
                        + "font-size=\"9\">%s</text>%n", x + i * BAR + BAR / 2 - 1, y - 3, number(v)));
            }
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    x + ss.size() * BAR / 2, TOP + PLOT_HEIGHT + 16, esc(g)));
            x += groupWidth;
        }
        s.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#263238\"/>%n",
                LEFT, width - 20, TOP + PLOT_HEIGHT, TOP + PLOT_HEIGHT));
        for (int i = 0; i < ss.size(); i++) {
            int lx = LEFT + (i % 4) * 130;
            int ly = TOP + PLOT_HEIGHT + 40 + (i / 4) * 20;
            s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n", lx, ly - 10, COLOURS[i % COLOURS.length], lx + 16, ly,
                    esc(ss.get(i))));
        }
        return s.append("</svg>\n").toString();
    }

    /** Maps a value to 0..1 of the plot's height. */
    private record Axis(boolean log, double low, double high) {
        static Axis linear(double max) {
            double step = step(max);
            return new Axis(false, 0, Math.max(step, Math.ceil(max / step) * step));
        }

        static Axis log(double min, double max) {
            // half a decade of room under the smallest bar, so it still shows
            double lo = Math.floor(Math.log10(min == Double.MAX_VALUE ? 1 : min) - 0.5);
            double hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(max, 1e-300))));
            return new Axis(true, lo, hi);
        }

        double scale(double v) {
            if (log) {
                return v <= 0 ? 0 : (Math.log10(v) - low) / (high - low);
            }
            return (v - low) / (high - low);
        }

        List<Double> ticks() {
            List<Double> t = new ArrayList<>();
            if (log) {
                for (double e = low; e <= high; e++) {
                    t.add(Math.pow(10, e));
                }
            } else {
                double step = step(high);
                for (double v = 0; v <= high + step / 2; v += step) {
                    t.add(v);
                }
            }
            return t;
        }

        /** A round step giving four to ten ticks. */
        private static double step(double max) {
            if (max <= 0) {
                return 1;
            }
            double p = Math.pow(10, Math.floor(Math.log10(max)));
            double m = max / p;
            return m > 5 ? p : m > 2 ? p / 2 : p / 5;
        }
    }

    private static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e7) {
            return String.format(Locale.ROOT, "%d", (long) v);
        }
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (Math.abs(v) >= 1) {
            return String.format(Locale.ROOT, "%.2f", v).replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return new java.math.BigDecimal(String.format(Locale.ROOT, "%.3g", v)).stripTrailingZeros().toPlainString();
    }

    private static String esc(String s) {
        return Drawing.html(s);
    }
}
