package io.ibemu.emulator.cli;

import io.ibemu.emulator.view.BarChart;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code plot bars --title T --unit U [--log] -o OUT.svg}: "GROUP\tSERIES\tVALUE" lines on stdin as a bar chart. */
@Command(name = "plot", mixinStandardHelpOptions = true,
        description = "Write benchmark figures (GROUP<tab>SERIES<tab>VALUE lines on stdin) as an SVG bar chart.")
final class PlotCommand implements Callable<Integer> {
    @Option(names = "--title", required = true, description = "the chart's title")
    String title;

    @Option(names = "--unit", required = true, description = "what the values are in, e.g. us or GB/s")
    String unit;

    @Option(names = "--log", description = "a logarithmic axis (values spanning decades)")
    boolean log;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "OUT.svg")
    Path output;

    @Override
    public Integer call() {
        try {
            var lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).lines().toList();
            Files.writeString(output, BarChart.svg(title, unit, log, BarChart.parse(lines)));
            return 0;
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("ibemu plot: " + e.getMessage());
            return 1;
        }
    }
}
