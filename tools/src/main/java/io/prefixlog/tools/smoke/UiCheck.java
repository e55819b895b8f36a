package io.prefixlog.tools.smoke;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the compose project's session explorer ({@code ui} service) serves, through its published
 * port with a real HTTP client: a page without the token is refused (401), and with it (the {@code
 * Authorization: Bearer} header) the sessions list counts exactly the sessions on the deltas topic
 * and a session's page lists exactly its turns and the session's live state, which the UI asks the
 * stream app for (interactive queries across the scaled instances). The UI's list may lag its index
 * by a second and the index the topic, so both are polled.
 */
final class UiCheck {
  private static final Pattern MATCHED =
      Pattern.compile("<p id=\"matched\">([\\d,]+) of ([\\d,]+) sessions match");
  private static final Pattern TURN_ROW = Pattern.compile("<a class=\"turn\" href=");

  /** The live-state panel's table of kept bases: there only when the stream app answered. */
  private static final String LIVE_BASES = "id=\"live-bases\"";

  private static final Pattern LIVE_STATUS =
      Pattern.compile("id=\"live-state\".*?<p class=\"status\"[^>]*>(.*?)</p>", Pattern.DOTALL);

  private final URI base;
  private final String token;
  private final HttpClient client = HttpClient.newHttpClient();

  UiCheck(int port, String token) {
    this.base = URI.create("http://127.0.0.1:" + port + "/");
    this.token = token;
  }

  /**
   * Waits until the UI lists {@code turnsBySession.size()} sessions and shows the one with the most
   * turns with all of them; checks that the same pages without the token are refused.
   *
   * @param turnsBySession the deltas topic's latest values: turns per session key
   * @return a one-line summary
   */
  String await(Map<String, Long> turnsBySession, Duration timeout)
      throws IOException, InterruptedException {
    Map.Entry<String, Long> largest =
        turnsBySession.entrySet().stream()
            .max(
                Map.Entry.<String, Long>comparingByValue()
                    .thenComparing(Map.Entry.comparingByKey()))
            .orElseThrow(() -> new SmokeFailure("no session to look for in the UI"));
    String sessionPath =
        "session?key=" + URLEncoder.encode(largest.getKey(), StandardCharsets.UTF_8);
    int refusedList = get("", null).statusCode();
    int refusedSession = get(sessionPath, null).statusCode();
    int refusedWrongToken = get("", "not-the-token-0123456789").statusCode();
    if (refusedList != 401 || refusedSession != 401 || refusedWrongToken != 401) {
      throw new SmokeFailure(
          "the UI answered without its token: "
              + refusedList
              + " for /, "
              + refusedSession
              + " for a session, "
              + refusedWrongToken
              + " with a wrong token (401 expected)");
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    while (true) {
      HttpResponse<String> list = get("", token);
      Matcher m = MATCHED.matcher(list.body());
      if (list.statusCode() == 200 && m.find()) {
        long listed = Long.parseLong(m.group(2).replace(",", ""));
        HttpResponse<String> session = get(sessionPath, token);
        long rows =
            session.statusCode() == 200 ? TURN_ROW.matcher(session.body()).results().count() : -1;
        boolean liveState = session.statusCode() == 200 && session.body().contains(LIVE_BASES);
        if (listed == turnsBySession.size() && rows == largest.getValue() && liveState) {
          return String.format(
              Locale.ROOT,
              "UI: 401 without the token; with it %d sessions listed, session %s… with its %d"
                  + " turns and its live state from the stream app",
              listed,
              largest.getKey().substring(0, Math.min(8, largest.getKey().length())),
              rows);
        }
        last =
            listed
                + " sessions listed, "
                + rows
                + " turns on the largest session's page, live state "
                + (liveState ? "shown" : liveStateStatus(session.body()));
      } else {
        last = "status " + list.statusCode();
      }
      if (System.nanoTime() > deadline) {
        throw new SmokeFailure(
            "the UI did not show the topic's "
                + turnsBySession.size()
                + " sessions and the largest one's "
                + largest.getValue()
                + " turns: "
                + last);
      }
      TimeUnit.SECONDS.sleep(2);
    }
  }

  /** Waits until the session's page is 404 (erased) and the list no longer counts it. */
  void awaitGone(String sessionKey, long sessionsLeft, Duration timeout)
      throws IOException, InterruptedException {
    String path = "session?key=" + URLEncoder.encode(sessionKey, StandardCharsets.UTF_8);
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "";
    while (true) {
      int status = get(path, token).statusCode();
      Matcher m = MATCHED.matcher(get("", token).body());
      long listed = m.find() ? Long.parseLong(m.group(2).replace(",", "")) : -1;
      if (status == 404 && listed == sessionsLeft) {
        return;
      }
      last = "session page " + status + ", " + listed + " sessions listed";
      if (System.nanoTime() > deadline) {
        throw new SmokeFailure(
            "the UI still shows the erased session (" + sessionsLeft + " expected): " + last);
      }
      TimeUnit.SECONDS.sleep(2);
    }
  }

  /** What the live-state panel says instead of the state (its status line, tags removed). */
  private static String liveStateStatus(String page) {
    Matcher m = LIVE_STATUS.matcher(page);
    return m.find() ? "missing: " + m.group(1).replaceAll("<[^>]+>", "") : "panel missing";
  }

  private HttpResponse<String> get(String path, String bearer)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10));
    if (bearer != null) {
      request.header("Authorization", "Bearer " + bearer);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
