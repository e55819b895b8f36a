package io.prefixlog.tools.smoke;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The security probes the compose deployment must pass, on its published ports, as an attacker
 * would try them: Kafka Connect's REST API returns the connectors' configurations without their
 * secrets (the worker resolves {@code ${env:…}} itself), and a page that rebinds its DNS name to
 * 127.0.0.1 gets 403 from the UI and the bridge's metrics, where the same request by address
 * passes.
 */
final class SecurityProbes {
  private static final String REBOUND = "attacker.example";
  private static final List<String> SECRETS = List.of("MINIO_ROOT_PASSWORD", "POSTGRES_PASSWORD");

  private final SmokeEnvironment env;
  private final HttpClient http = HttpClient.newHttpClient();

  SecurityProbes(SmokeEnvironment env) {
    this.env = env;
  }

  /** Runs every probe; a one-line summary, or {@link SmokeFailure} naming the one that failed. */
  String run() throws IOException, InterruptedException {
    connectConfigsHoldNoSecret("prefixlog-archive-deltas");
    int ui = env.port("UI_PORT");
    int metrics = env.port("BRIDGE_METRICS_PORT");
    refusedWhenRebound("the UI", ui, "/health");
    refusedWhenRebound("the bridge's metrics", metrics, "/metrics");
    return "security probes: Connect's configs hold no secret; rebound Host refused by the UI and"
        + " the bridge's metrics";
  }

  private void connectConfigsHoldNoSecret(String connector)
      throws IOException, InterruptedException {
    URI uri =
        URI.create(
            "http://127.0.0.1:"
                + env.port("CONNECT_PORT")
                + "/connectors/"
                + connector
                + "/config");
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new SmokeFailure(
          "Connect's GET " + uri.getPath() + " answered " + response.statusCode());
    }
    for (String secret : SECRETS) {
      if (response.body().contains(env.get(secret))) {
        throw new SmokeFailure(
            "Connect's REST API returns " + secret + " in " + connector + "'s configuration");
      }
    }
    if (!response.body().contains("${env:S3_SECRET_KEY}")
        || !response.body().contains("${env:CATALOG_PASSWORD}")) {
      throw new SmokeFailure(
          connector + "'s configuration does not take its secrets from the worker's environment");
    }
  }

  private static void refusedWhenRebound(String what, int port, String path) throws IOException {
    String rebound = statusLine(port, path, REBOUND + ":" + port);
    String direct = statusLine(port, path, "127.0.0.1:" + port);
    if (!rebound.contains(" 403 ")) {
      throw new SmokeFailure(what + " answered a rebound Host with " + rebound);
    }
    if (rebound.equals(direct) || direct.contains(" 403 ")) {
      throw new SmokeFailure(what + " refused its own address too: " + direct);
    }
  }

  /** The status line of a GET with this Host, written as a browser writes it. */
  private static String statusLine(int port, String path, String host) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int end = response.indexOf("\r\n");
      return end < 0 ? response : response.substring(0, end);
    }
  }
}
