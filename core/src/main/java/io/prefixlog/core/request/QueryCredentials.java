package io.prefixlog.core.request;

import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigType;
import io.prefixlog.core.config.ConfigTypes;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Which query parameters of a request target are credentials, and the target without them: what a
 * stored {@code path} keeps. Engines and gateways take keys in the query ({@code ?key=} for Gemini,
 * {@code ?api-key=}, {@code ?access_token=}, signed URLs' {@code sig} and {@code X-Amz-Signature});
 * the request is forwarded as the client sent it, but a stored path never holds them.
 *
 * <p>A rule is a parameter name, compared without regard to case after percent-decoding, in which
 * {@code *} stands for any characters: {@code key} removes {@code key=} and {@code KEY=} only,
 * {@code *token*} every name that contains {@code token}. Every other byte of the target stays as
 * the client sent it, in order; a query left empty loses its {@code ?}.
 */
public final class QueryCredentials {
  /**
   * The default rules: the names engines and clouds put keys under, and any name that contains a
   * credential word (the header deny-list's words too).
   */
  public static final List<String> DEFAULT_RULES =
      List.of(
          "key",
          "code",
          "sig",
          "signature",
          "*auth*",
          "*token*",
          "*secret*",
          "*passw*",
          "*api-key*",
          "*api_key*",
          "*apikey*",
          "*credential*",
          "x-amz-*",
          "x-goog-*");

  /**
   * The setting, one for every component that stores a path: the bridge (proxy and ingest) and the
   * stream app, which also cleans events that producers wrote to {@code requests.raw} directly.
   */
  public static final ConfigKey<QueryCredentials> SETTING =
      ConfigKey.of("PREFIXLOG_QUERY_CREDENTIALS", configType())
          .defaultValue(defaults())
          .documentedDefault("`" + String.join(",", DEFAULT_RULES) + "`")
          .doc(
              "query parameters removed from every stored path, their names compared without"
                  + " regard to case (a proxied request is forwarded as sent); each removal is"
                  + " counted (prefixlog_proxy_query_credentials_removed_total in the bridge,"
                  + " prefixlog_query_credentials_removed_total in the stream app). Empty keeps"
                  + " every parameter");

  private final WildcardNames names;

  private QueryCredentials(List<String> rules) {
    this.names = new WildcardNames(rules);
  }

  /**
   * The rules given; each is checked: a rule is not blank and holds only the characters of a query
   * parameter's name ({@code =}, {@code &}, {@code #} and white space are not).
   */
  public static QueryCredentials of(List<String> rules) {
    for (String rule : rules) {
      if (rule.isBlank() || !rule.matches("[^\\s=&#?]+")) {
        throw new IllegalArgumentException(
            "'" + rule + "' is not a query parameter name (with * for any characters)");
      }
    }
    return new QueryCredentials(rules);
  }

  /** {@link #DEFAULT_RULES}. */
  public static QueryCredentials defaults() {
    return of(DEFAULT_RULES);
  }

  /** Whether a parameter of this name (as written in the target, percent-encoded) is removed. */
  public boolean isCredential(String encodedName) {
    if (names.isEmpty()) {
      return false;
    }
    String name;
    try {
      name = URLDecoder.decode(encodedName, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException malformed) {
      name = encodedName; // a broken escape is compared as written
    }
    return names.matches(name);
  }

  /** {@code target} without its credential parameters, and how many there were. */
  public Stripped strip(String target) {
    int question = target == null ? -1 : target.indexOf('?');
    if (question < 0 || names.isEmpty()) {
      return new Stripped(target, 0);
    }
    List<String> kept = new ArrayList<>();
    int removed = 0;
    for (String parameter : target.substring(question + 1).split("&", -1)) {
      int eq = parameter.indexOf('=');
      if (isCredential(eq < 0 ? parameter : parameter.substring(0, eq))) {
        removed++;
      } else {
        kept.add(parameter);
      }
    }
    if (removed == 0) {
      return new Stripped(target, 0);
    }
    String path = target.substring(0, question);
    return new Stripped(kept.isEmpty() ? path : path + "?" + String.join("&", kept), removed);
  }

  /** The setting's type: rules, comma separated, each checked as {@link #of} checks them. */
  public static ConfigType<QueryCredentials> configType() {
    return ConfigTypes.listOf(
        QueryCredentials::of, "query parameter names, comma separated, `*` for any characters");
  }

  /**
   * A target without its credentials.
   *
   * @param target what is stored
   * @param removed how many parameters were removed
   */
  public record Stripped(String target, int removed) {}

  @Override
  public String toString() {
    return names.toString();
  }
}
