package io.ibemu.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's headless Chromium driven over the DevTools protocol (a WebSocket, the JDK's client):
 * open a page, evaluate JavaScript in it, take a screenshot. A fresh profile directory, no
 * sandbox (root), nothing fetched from the network; closed with the process and its children.
 */
final class Chromium implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final Pattern ID = Pattern.compile("^\\{\"id\":(\\d+),");

    private final Command.Running process;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<String>> pending = new ConcurrentHashMap<>();

    private Chromium(Command.Running process, WebSocket socket) {
        this.process = process;
        this.socket = socket;
    }

    static Chromium start() throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory(Ibemu.tmpDir(), "chromium-");
        Command.Running p = Command.of("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + profile, "--remote-debugging-port=0", "--window-size=1400,1000", "about:blank")
                .timeout(Duration.ofMinutes(10)).start();
        // Chromium writes the port it took into the profile once DevTools listens
        Path active = profile.resolve("DevToolsActivePort");
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!(Files.exists(active) && Files.readAllLines(active).size() >= 2)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("chromium did not start: " + p.stop());
            }
            Thread.sleep(100);
        }
        int port = Integer.parseInt(Files.readAllLines(active).get(0).strip());
        HttpClient http = HttpClient.newHttpClient();
        String list = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("\"type\":\\s*\"page\"[^}]*?\"webSocketDebuggerUrl\":\\s*\"([^\"]+)\"").matcher(list);
        if (!m.find()) {
            m = Pattern.compile("\"webSocketDebuggerUrl\":\\s*\"(ws://[^\"]+/page/[^\"]+)\"").matcher(list);
            if (!m.find()) {
                throw new AssertionError("no page target in " + list);
            }
        }
        Chromium[] self = new Chromium[1];
        StringBuilder partial = new StringBuilder();
        WebSocket ws = http.newWebSocketBuilder().buildAsync(URI.create(m.group(1)), new WebSocket.Listener() {
            @Override
            public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                partial.append(data);
                if (last) {
                    self[0].received(partial.toString());
                    partial.setLength(0);
                }
                w.request(1);
                return null;
            }
        }).join();
        self[0] = new Chromium(p, ws);
        return self[0];
    }

    private void received(String message) {
        Matcher m = ID.matcher(message);
        if (m.find()) {
            CompletableFuture<String> f = pending.remove(Integer.parseInt(m.group(1)));
            if (f != null) {
                f.complete(message);
            }
        }
    }

    /** One DevTools command; its raw JSON answer. */
    String call(String method, String params) {
        int id = ids.incrementAndGet();
        CompletableFuture<String> f = new CompletableFuture<>();
        pending.put(id, f);
        socket.sendText("{\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}", true).join();
        try {
            String answer = f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (answer.contains("\"error\":")) {
                throw new AssertionError(method + ": " + answer);
            }
            return answer;
        } catch (Exception e) {
            throw new AssertionError(method + " got no answer", e);
        }
    }

    void navigate(String url) {
        call("Page.navigate", "{\"url\":\"" + url + "\"}");
    }

    /** The string a JavaScript expression returns (it must return a string). */
    String evaluate(String expression) {
        String answer = call("Runtime.evaluate", "{\"expression\":" + jsonString(expression) + ",\"returnByValue\":true}");
        Matcher m = Pattern.compile("\"value\":\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(answer);
        if (!m.find()) {
            return null;
        }
        return unescape(m.group(1));
    }

    void screenshot(Path png) {
        String answer = call("Page.captureScreenshot", "{\"format\":\"png\"}");
        Matcher m = Pattern.compile("\"data\":\"([A-Za-z0-9+/=]+)\"").matcher(answer);
        if (!m.find()) {
            throw new AssertionError("no screenshot in " + answer.substring(0, Math.min(200, answer.length())));
        }
        try {
            Files.write(png, Base64.getDecoder().decode(m.group(1)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String jsonString(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    private static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char n = s.charAt(++i);
            switch (n) {
                case 'n' -> b.append('\n');
                case 't' -> b.append('\t');
                case 'u' -> {
                    b.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> b.append(n);
            }
        }
        return b.toString();
    }

    @Override
    public void close() {
        socket.abort();
        process.stop();
    }
}
