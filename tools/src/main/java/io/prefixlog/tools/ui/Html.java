package io.prefixlog.tools.ui;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Escaping and the page frame every page shares. Every text from a record goes through {@link
 * #text}.
 */
final class Html {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);

  private Html() {}

  /** Escapes text for an element's content or a quoted attribute. */
  static String text(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(s.length() + 16);
    escapeInto(b, s, 0, s.length());
    return b.toString();
  }

  static void escapeInto(StringBuilder b, String s, int from, int to) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
  }

  static String url(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** A time as {@code yyyy-MM-dd HH:mm:ss} (UTC), or an empty string for 0. */
  static String time(long epochMs) {
    return epochMs <= 0 ? "" : TIME.format(Instant.ofEpochMilli(epochMs));
  }

  /** ISO-8601, for {@code <time datetime>}. */
  static String iso(long epochMs) {
    return Instant.ofEpochMilli(epochMs).toString();
  }

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    if (n < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
    }
    return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
  }

  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  static String percent(double share) {
    return share < 0 ? "–" : String.format(Locale.ROOT, "%.1f%%", share * 100);
  }

  /** The page frame: head, the navigation, a main landmark with the page's h1. */
  static String page(String title, String body) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<title>"
        + text(title)
        + " · prefixlog</title>"
        + "<link rel=\"stylesheet\" href=\"/static/ui.css\">"
        + "<script src=\"/static/ui.js\" defer></script></head><body>"
        + "<a class=\"skip\" href=\"#main\">Skip to content</a>"
        + "<header><nav aria-label=\"Main\"><a class=\"brand\" href=\"/\">prefixlog</a>"
        + "<a href=\"/\">Sessions</a><a href=\"/cache\">Cache</a></nav></header>"
        + "<main id=\"main\">"
        + body
        + "</main><footer>Served by prefixlog ui from the session deltas topic. Nothing leaves"
        + " this server.</footer></body></html>\n";
  }
}
