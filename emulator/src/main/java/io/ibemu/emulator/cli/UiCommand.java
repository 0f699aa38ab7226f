package io.ibemu.emulator.cli;

import io.ibemu.emulator.control.ControlClient;
import io.ibemu.emulator.view.LivePage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ui --state DIR [--port N]}: the live page of the daemon whose state directory is DIR, on 127.0.0.1. */
@Command(name = "ui", mixinStandardHelpOptions = true,
        description = "Serve a live page of a running emulator on 127.0.0.1 until interrupted.")
final class UiCommand implements Callable<Integer> {
    @Option(names = "--state", paramLabel = "DIR", required = true, description = "The daemon's state directory.")
    Path state;

    @Option(names = "--port", paramLabel = "N", defaultValue = "8470",
            description = "TCP port on 127.0.0.1 (default: ${DEFAULT-VALUE}; 0: any free one)")
    int port;

    @Override
    public Integer call() throws InterruptedException {
        LivePage.Control control = words -> {
            ControlClient.Reply r = ControlClient.send(state, List.of(words));
            if (!r.ok()) {
                throw new IOException(r.error());
            }
            return r.lines();
        };
        try {
            control.ask("help");
        } catch (IOException e) {
            System.err.println("ibemu ui: " + e.getMessage());
            return 1;
        }
        LivePage page;
        try {
            page = LivePage.start(control, port);
        } catch (IOException e) {
            System.err.println("ibemu ui: cannot serve on 127.0.0.1:" + port + ": " + e.getMessage()
                    + " (choose another with --port N, or 0 for any free port)");
            return 1;
        }
        System.out.println("ibemu ui: serving http://127.0.0.1:" + page.port() + "/ (Ctrl-C to stop)");
        System.out.flush();
        new CountDownLatch(1).await();
        return 0;
    }
}
