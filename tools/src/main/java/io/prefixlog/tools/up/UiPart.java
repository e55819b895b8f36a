package io.prefixlog.tools.up;

import io.prefixlog.tools.ui.UiServer;
import java.io.IOException;

/**
 * The session explorer of {@code up} ({@code prefixlog ui} in-process, on 127.0.0.1 with a token
 * generated at start; the banner prints the URL that logs in), reading the stack's own delta topic.
 * Started after the stream app, which creates the topic (the UI waits for it otherwise), and
 * stopped before it.
 */
final class UiPart implements Part {
  private final UiServer server;

  private UiPart(UiServer server) {
    this.server = server;
  }

  static UiPart start(String bootstrap, String topicPrefix, int port) throws IOException {
    return new UiPart(UiServer.startOnLoopback(bootstrap, topicPrefix, port));
  }

  /** The banner's line: where to open it. */
  String banner() {
    return "  ui            " + server.loginUrl() + "   (the session explorer; prefixlog ui)\n";
  }

  @Override
  public void close() {
    server.close();
  }
}
