package io.ibemu.emulator.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeType;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class DrawingTest {
    private static Picture.Cable cable(String a, int pa, String b, int pb, CableState s) {
        return new Picture.Cable(a, pa, b, pb, LinkWidth.X4, LinkSpeed.QDR, s);
    }

    @Test
    void tiersCountHopsFromTheAdapters() {
        List<Picture.Cable> cables = List.of(cable("h1", 1, "leaf", 1, CableState.ACTIVE),
                cable("leaf", 2, "spine", 1, CableState.ACTIVE), cable("lonely", 1, "island", 1, CableState.ACTIVE));
        var tiers = Picture.tiers(List.of("h1"), cables);
        assertEquals(0, tiers.applyAsInt("h1"));
        assertEquals(1, tiers.applyAsInt("leaf"));
        assertEquals(2, tiers.applyAsInt("spine"));
        assertEquals(3, tiers.applyAsInt("island"), "what no adapter reaches sits above the rest");
    }

    @Test
    void aSmallFabricDrawsEveryCableWithPortsAndState() {
        Picture p = new Picture("t", List.of(
                new Picture.Shape("h1", NodeType.CA, "host one", 1, true, 0),
                new Picture.Shape("sw", NodeType.SWITCH, "sw", 2, false, 1),
                new Picture.Shape("h2", NodeType.CA, "h2", 3, false, 0)),
                List.of(cable("h1", 1, "sw", 1, CableState.ACTIVE), cable("sw", 2, "h2", 1, CableState.CUT)));
        String dot = Drawing.dot(p);
        assertTrue(dot.contains("\"h1\" -- \"sw\" [id=\"cable:h1/1-sw/1\", color=\"#2e7d32\""), dot);
        // drawn from the lower tier up, whichever end the cable names first
        assertTrue(dot.contains("\"h2\" -- \"sw\" [id=\"cable:sw/2-h2/1\", color=\"#c62828\", style=dashed"), dot);
        assertTrue(dot.contains("label=\"h1\\n(local)\\nLID 1\""), dot);
        assertTrue(dot.contains("{ rank=same; \"h1\"; \"h2\"; }"), dot);
    }

    @Test
    void manyHostsGoIntoTheirLeafsTableButLocalOnesStandAlone() {
        List<Picture.Shape> nodes = new ArrayList<>();
        List<Picture.Cable> cables = new ArrayList<>();
        nodes.add(new Picture.Shape("leaf", NodeType.SWITCH, "leaf", 0, false, 1));
        for (int i = 0; i <= Drawing.GROUP_ABOVE; i++) {
            nodes.add(new Picture.Shape("h" + i, NodeType.CA, "", 0, i == 0, 0));
            cables.add(cable("h" + i, 1, "leaf", i + 1, i == 5 ? CableState.CUT : CableState.ACTIVE));
        }
        String dot = Drawing.dot(new Picture("t", nodes, cables));
        assertTrue(dot.contains("\"h0\" [id=\"node:h0\""), "a local HCA drawn alone");
        assertFalse(dot.contains("\"h1\" [id="), "others in the table");
        assertTrue(dot.contains("<TD ID=\"node:h5\" HREF=\"#h5\" BGCOLOR=\"#ffcdd2\""), "a cut host's cell shaded");
        assertTrue(dot.contains("64 hosts on leaf"), dot);
        assertEquals(1, Pattern.compile("\"hosts:leaf\" -- \"leaf\"").matcher(dot).results().count(),
                "one line for the table");
    }

    @Test
    void aBarChartHasABarPerFigureAndALogAxisWhenAsked() {
        String svg = BarChart.svg("t", "us", true, BarChart.parse(List.of("# c", "a\tibemu\t40", "a\tfloor\t20",
                "b\tibemu\t0.5")));
        assertEquals(3, Pattern.compile("</title></rect>").matcher(svg).results().count(), "a bar per figure");
        assertTrue(svg.contains(">0.1</text>") && svg.contains(">100</text>"), "decades on the axis");
        assertTrue(svg.contains("(log scale)"));
    }
}
