package io.prefixlog.tools.ui;

import io.prefixlog.cli.Terminal;
import io.prefixlog.tools.Command;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;

/**
 * {@code prefixlog ui}: the session explorer. Serves the pages until the process is stopped; on
 * loopback by default, beyond it only with a token.
 */
public final class UiCommand implements Command {
  private static final String DESCRIPTION =
      """
      Serves the session explorer: a web page over the captured sessions. The sessions list
      (search by session key prefix, model, path and time; sort by last activity, turns, bytes
      or cached share), one session's timeline (each turn's size, keyframe or delta and why, its
      base turn, branches drawn as a tree, status, latency, prompt against cached tokens, and the
      leading chunks of chunk.lookups an earlier turn already sent), and one turn (the
      rebuilt body checked against its SHA-256, the diff against its base drawn from the delta's
      ops, the chat messages, the raw JSON, a download of the exact bytes, and the reconstruct
      and jq commands that rebuild it). The cache page shows each engine's KV statistics and
      runs analyze; the block index page lists each engine's resident blocks by hash. The UI
      reads <prefix>session.deltas, chunk.lookups and kv.block-index from the beginning into
      indexes in memory and follows them (erased sessions disappear as their tombstones arrive);
      a turn page reads only its records, and a session page its lookups, by offset. With
      --stream-app the session page shows the session's live state in the stream app
      (interactive queries); with --archive, sessions beyond the topic are read from the archive
      (marked so) and /archive lists the archived sessions. It serves on 127.0.0.1 unless --host
      says otherwise, and anywhere else only with a token. Ctrl-C stops it.
      """;

  private final Terminal terminal;

  public UiCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  @Override
  public Spec spec() {
    return new Spec(
        "ui",
        "Serve the session explorer: sessions, turns and their diffs, cache statistics.",
        DESCRIPTION,
        UiSettings.OPTIONS);
  }

  @Override
  public int run(String[] args) {
    return invoke(args, terminal, line -> UiSettings.from(line, terminal.env()), this::serve);
  }

  private int serve(UiSettings settings) {
    UiServer server;
    try {
      server = UiServer.start(settings);
    } catch (IOException e) {
      terminal
          .err()
          .println(
              "prefixlog ui: cannot serve on "
                  + settings.host()
                  + ":"
                  + settings.port()
                  + ": "
                  + e);
      return FAILED;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Thread shutdown =
        new Thread(
            () -> {
              server.close();
              stopped.countDown();
            },
            "prefixlog-ui-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdown);
    terminal
        .out()
        .println(
            "prefixlog ui: open "
                + (settings.tokenGenerated()
                    ? server.loginUrl()
                    : server.url() + "?token=<your token>")
                + "   (reading "
                + settings.topicPrefix()
                + "session.deltas at "
                + settings.bootstrap()
                + "; Ctrl-C stops it)");
    terminal.out().flush();
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.close();
    }
    return OK;
  }
}
