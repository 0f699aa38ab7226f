package io.ibemu.emulator.view;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The live page of a running instance, served on 127.0.0.1 only with the JDK's HTTP server:
 * the page itself (one file, no framework, nothing fetched from elsewhere), the drawing as SVG,
 * server-sent events when the fabric changes, and the counters, verbs objects, uevents, drop
 * rates and fault rules (every kind, with their hits) as JSON. Everything comes from the daemon's control commands; a watcher asks for
 * the drawing's fingerprint every {@link #WATCH_MS}, and for the drawing and tells the open pages
 * when it differs.
 */
public final class LivePage implements AutoCloseable {
    /** How often the fabric is looked at: a change reaches the page well within a second. */
    static final long WATCH_MS = 200;
    /** A comment line this often keeps idle event streams open and finds pages that left. */
    static final long KEEPALIVE_MS = 5_000;

    /** One control request to the daemon: its words in, the reply's lines out. */
    @FunctionalInterface
    public interface Control {
        List<String> ask(String... words) throws IOException;
    }

    private final Control control;
    private final HttpServer server;
    private final ScheduledExecutorService watcher;
    private final Set<OutputStream> streams = new CopyOnWriteArraySet<>();
    // owned by the watcher thread, read by handlers
    private volatile String dot = "";
    private volatile String digest = "";
    private volatile long generation;
    private volatile byte[] svg;
    private volatile String svgOf = "";

    private LivePage(Control control, HttpServer server) {
        this.control = control;
        this.server = server;
        this.watcher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "live-page-watch");
            t.setDaemon(true);
            return t;
        });
    }

    /** Serves on 127.0.0.1:{@code port} (0: any free port) until closed. */
    public static LivePage start(Control control, int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        LivePage page = new LivePage(control, server);
        server.createContext("/", page::index);
        server.createContext("/fabric.svg", page::drawing);
        server.createContext("/changes", page::changes);
        server.createContext("/counters.json", e -> page.lines(e, "counters"));
        server.createContext("/objects.json", e -> page.lines(e, "objects"));
        server.createContext("/uevents.json", e -> page.lines(e, "events"));
        server.createContext("/faults.json", page::faults);
        server.createContext("/node.json", page::node);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "live-page-http");
            t.setDaemon(true);
            return t;
        }));
        page.watch();
        page.watcher.scheduleWithFixedDelay(page::watch, WATCH_MS, WATCH_MS, TimeUnit.MILLISECONDS);
        page.watcher.scheduleWithFixedDelay(page::keepalive, KEEPALIVE_MS, KEEPALIVE_MS, TimeUnit.MILLISECONDS);
        server.start();
        return page;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** Asks for the drawing's fingerprint; the drawing itself only when that changed. */
    private void watch() {
        try {
            String now = String.join("", control.ask("draw", "--digest"));
            if (!now.equals(digest)) {
                dot = String.join("\n", control.ask("draw")) + "\n";
                digest = now;
                generation++;
                broadcast("event: fabric\ndata: " + generation + "\n\n");
            }
        } catch (IOException e) {
            broadcast("event: gone\ndata: " + json(e.getMessage()) + "\n\n");
        }
    }

    private void keepalive() {
        broadcast(": alive\n\n");
    }

    private void broadcast(String event) {
        byte[] bytes = event.getBytes(StandardCharsets.UTF_8);
        for (OutputStream s : streams) {
            try {
                s.write(bytes);
                s.flush();
            } catch (IOException e) {
                streams.remove(s);
            }
        }
    }

    private void index(HttpExchange e) throws IOException {
        if (!e.getRequestURI().getPath().equals("/")) {
            send(e, 404, "text/plain", "not found".getBytes(StandardCharsets.UTF_8));
            return;
        }
        try (InputStream in = LivePage.class.getResourceAsStream("live.html")) {
            send(e, 200, "text/html; charset=utf-8", in.readAllBytes());
        }
    }

    /** The drawing laid out by dot, again only when the DOT changed. */
    private void drawing(HttpExchange e) throws IOException {
        String source = dot;
        byte[] picture;
        synchronized (this) {
            if (!source.equals(svgOf) || svg == null) {
                svg = Graphviz.render(source, "svg");
                svgOf = source;
            }
            picture = svg;
        }
        e.getResponseHeaders().add("Cache-Control", "no-store");
        send(e, 200, "image/svg+xml", picture);
    }

    /** Server-sent events: "fabric" with a generation number whenever the drawing changes. */
    private void changes(HttpExchange e) throws IOException {
        e.getResponseHeaders().add("Content-Type", "text/event-stream");
        e.getResponseHeaders().add("Cache-Control", "no-store");
        e.sendResponseHeaders(200, 0);
        OutputStream out = e.getResponseBody();
        out.write(("retry: 500\nevent: fabric\ndata: " + generation + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        streams.add(out);
    }

    /** A control command's reply lines as a JSON array of strings. */
    private void lines(HttpExchange e, String command) throws IOException {
        sendJson(e, jsonArray(control.ask(command)));
    }

    /** The ports' drop rates (ctl drop) and every fault rule, of any kind, with its hits (ctl fault list). */
    private void faults(HttpExchange e) throws IOException {
        List<String> all = new java.util.ArrayList<>(control.ask("drops"));
        all.addAll(control.ask("fault", "list"));
        sendJson(e, jsonArray(all));
    }

    /** One node's dump (its ports, states, LIDs, cables), for a node picked in the drawing: {@code ?id=NODE}. */
    private void node(HttpExchange e) throws IOException {
        String query = e.getRequestURI().getRawQuery();
        String id = query != null && query.startsWith("id=")
                ? URLDecoder.decode(query.substring(3), StandardCharsets.UTF_8) : "";
        try {
            sendJson(e, jsonArray(control.ask("dump", id)));
        } catch (IOException refused) {
            // an unknown node: the daemon's message, for the page to show
            sendJson(e, jsonArray(List.of(String.valueOf(refused.getMessage()))));
        }
    }

    private static void sendJson(HttpExchange e, String body) throws IOException {
        e.getResponseHeaders().add("Cache-Control", "no-store");
        send(e, 200, "application/json", body.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange e, int status, String type, byte[] body) throws IOException {
        e.getResponseHeaders().add("Content-Type", type);
        e.sendResponseHeaders(status, body.length);
        try (OutputStream out = e.getResponseBody()) {
            out.write(body);
        }
    }

    static String jsonArray(List<String> items) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++) {
            b.append(i == 0 ? "" : ",").append(json(items.get(i)));
        }
        return b.append(']').toString();
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : (s == null ? "" : s).toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    @Override
    public void close() {
        watcher.shutdownNow();
        server.stop(0);
    }
}
