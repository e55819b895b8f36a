package io.prefixlog.bridge.proxy;

/**
 * A request target in origin form ({@code /path?query}, RFC 9112 §3.2.1), what the proxy forwards
 * and stores. A client may send the absolute form ({@code http://host/path}) that forward proxies
 * take; this proxy only ever talks to its one engine, so the scheme and authority a client names
 * are dropped rather than passed on for the engine (or a proxy behind it) to act on.
 */
final class OriginForm {
  private OriginForm() {}

  /** {@code target} in origin form: unchanged when it is already, {@code /} for a bare origin. */
  static String of(String target) {
    if (target.isEmpty() || target.charAt(0) == '/' || target.equals("*")) {
      return target;
    }
    int scheme = target.indexOf("://");
    if (scheme < 0) {
      return target; // neither form; the engine answers it as it would
    }
    int authorityEnd = scheme + 3;
    while (authorityEnd < target.length() && "/?#".indexOf(target.charAt(authorityEnd)) < 0) {
      authorityEnd++;
    }
    String rest = target.substring(authorityEnd);
    int fragment = rest.indexOf('#');
    if (fragment >= 0) {
      rest = rest.substring(0, fragment);
    }
    return rest.startsWith("/") ? rest : "/" + rest;
  }
}
