package io.prefixlog.core.request;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigType;
import io.prefixlog.core.config.ConfigTypes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What a request body loses at capture, on purpose: the value of every JSON field whose name is a
 * credential's ({@link #FIELDS}), and every passage of a JSON string value that one of the {@link
 * #PATTERNS} matches (personal data, typically), each replaced by {@link #MARKER}. Every other byte
 * stays as the client sent it, in order, so the stored body is still the request but for the
 * redactions, and its checksum is that of the bytes stored: it rebuilds exactly to them, never to
 * what was redacted.
 *
 * <p>A field rule redacts scalar values only (a string, a number): an object or an array under a
 * credential's name is structure, such as a tool's JSON schema that declares a {@code password}
 * parameter, and a credential is never one. A string a pattern changed is written again as JSON
 * with the marker in place of each match (its other characters may be escaped differently). A body
 * that is not JSON is stored as it came; a JSON body cut by the capture limit is redacted as far as
 * it goes, and a string value cut short is replaced whole when any rule could apply to it, since it
 * cannot be read. Thread-safe.
 */
public final class BodyRedaction {
  /** What a redacted value, or a redacted passage of a string, becomes. */
  public static final String MARKER = "[REDACTED]";

  /**
   * Field names that hold credentials in request bodies: gateways such as LiteLLM take {@code
   * api_key} in the body, and tool or plugin payloads carry passwords and tokens. Not {@code
   * *token*}, which would take {@code max_tokens}.
   */
  public static final List<String> DEFAULT_FIELDS =
      List.of(
          "api_key",
          "apikey",
          "api-key",
          "x-api-key",
          "*password*",
          "*passwd*",
          "*secret*",
          "access_token",
          "refresh_token",
          "id_token",
          "auth_token",
          "session_token",
          "bearer_token",
          "authorization",
          "private_key",
          "*credential*");

  public static final ConfigKey<WildcardNames> FIELDS =
      ConfigKey.of(
              "PREFIXLOG_REDACT_FIELDS",
              ConfigTypes.listOf(
                  rules -> new WildcardNames(fieldRules(rules)),
                  "JSON field names, comma separated, `*` for any characters"))
          .defaultValue(new WildcardNames(DEFAULT_FIELDS))
          .documentedDefault("`" + String.join(",", DEFAULT_FIELDS) + "`")
          .doc(
              "JSON fields, at any depth of a request body, whose string or number value is"
                  + " replaced by `\"[REDACTED]\"` before the body is stored, names compared without"
                  + " regard to case; the request is forwarded as sent. A deliberate loss: the"
                  + " stored body and its checksum are the redacted bytes. Each value is counted"
                  + " (prefixlog_proxy_redactions_total{kind=\"field\"}). Empty redacts no field");

  public static final ConfigKey<List<Pattern>> PATTERNS =
      ConfigKey.of("PREFIXLOG_REDACT_PATTERNS", new PatternsType())
          .defaultValue(List.of())
          .documentedDefault("none")
          .doc(
              "regular expressions (Java syntax), one per line: every match inside a JSON string"
                  + " value of a request body is replaced by `[REDACTED]` before the body is"
                  + " stored, for personal data such as e-mail addresses or card numbers; the"
                  + " request is forwarded as sent. A deliberate loss, counted"
                  + " (prefixlog_proxy_redactions_total{kind=\"pattern\"}), which costs a full"
                  + " parse of every JSON body on the publisher thread");

  private static final JsonFactory JSON = new JsonFactory();
  private static final byte[] MARKER_JSON =
      ("\"" + MARKER + "\"").getBytes(StandardCharsets.US_ASCII);

  /** Names seen in bodies repeat (role, content, type): each is matched against the rules once. */
  private static final int NAME_CACHE_LIMIT = 4096;

  private final WildcardNames fields;
  private final List<Pattern> patterns;
  private final Map<String, Boolean> credentialNames = new ConcurrentHashMap<>();

  private BodyRedaction(WildcardNames fields, List<Pattern> patterns) {
    this.fields = fields;
    this.patterns = List.copyOf(patterns);
  }

  /** Redacts the values of the fields named and the passages the patterns match. */
  public static BodyRedaction of(WildcardNames fields, List<Pattern> patterns) {
    return new BodyRedaction(fields, patterns);
  }

  /** As {@link #of(WildcardNames, List)}, the field rules checked as the setting checks them. */
  public static BodyRedaction of(List<String> fieldRules, List<Pattern> patterns) {
    return of(new WildcardNames(fieldRules(fieldRules)), patterns);
  }

  /** Redacts nothing. */
  public static BodyRedaction none() {
    return of(List.of(), List.of());
  }

  /** Whether no rule is set, so that {@link #apply} returns every body as it is. */
  public boolean isEmpty() {
    return fields.isEmpty() && patterns.isEmpty();
  }

  /**
   * A body as it is stored.
   *
   * @param bytes the body, the same array when nothing was redacted
   * @param fields how many field values were redacted
   * @param passages how many passages the patterns matched
   */
  public record Redacted(byte[] bytes, int fields, int passages) {
    public boolean changed() {
      return fields > 0 || passages > 0;
    }

    @Override
    public String toString() {
      return "Redacted[length="
          + bytes.length
          + ", fields="
          + fields
          + ", passages="
          + passages
          + "]";
    }
  }

  /** The rules, for logs: field names and patterns, never a body. */
  @Override
  public String toString() {
    return "BodyRedaction[fields=" + fields + ", patterns=" + patterns.size() + "]";
  }

  /** The body with its redactions; itself, unchanged, when it is not JSON or nothing matched. */
  public Redacted apply(byte[] body) {
    if (isEmpty() || !startsLikeJson(body)) {
      return new Redacted(body, 0, 0);
    }
    Edits edits = new Edits(body);
    try (JsonParser parser = JSON.createParser(body)) {
      String name = null;
      for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
        if (token == JsonToken.FIELD_NAME) {
          name = parser.currentName();
          continue;
        }
        boolean credential = name != null && isCredentialName(name);
        name = null;
        if (token == JsonToken.VALUE_STRING && (credential || !patterns.isEmpty())) {
          // Only then is the string read: the parser skips the others without decoding them.
          string(parser, credential, edits);
        } else if (credential && token.isNumeric()) {
          edits.replace(start(parser), end(parser), MARKER_JSON, 1, 0);
        }
      }
    } catch (IOException notJsonOrCut) {
      // What was found before stays redacted; the rest is not JSON (or not there) to read.
    }
    return edits.result();
  }

  /**
   * A string value: redacted whole under a credential's name, its matched passages otherwise. One
   * that ends the input unterminated (a body cut by the capture limit) is redacted whole when any
   * rule could apply, since its text cannot be read.
   */
  private void string(JsonParser parser, boolean credential, Edits edits) throws IOException {
    long start = start(parser);
    String text;
    try {
      text = parser.getText();
    } catch (IOException cut) {
      if (credential || !patterns.isEmpty()) {
        edits.replace(start, edits.length(), MARKER_JSON, credential ? 1 : 0, credential ? 0 : 1);
      }
      throw cut;
    }
    if (credential) {
      edits.replace(start, end(parser), MARKER_JSON, 1, 0);
      return;
    }
    int passages = 0;
    String redacted = text;
    for (Pattern pattern : patterns) {
      Matcher matcher = pattern.matcher(redacted);
      StringBuilder out = null;
      int from = 0;
      while (matcher.find()) {
        if (matcher.end() == matcher.start()) {
          continue; // an empty match redacts nothing
        }
        out = out == null ? new StringBuilder(redacted.length()) : out;
        out.append(redacted, from, matcher.start()).append(MARKER);
        from = matcher.end();
        passages++;
      }
      if (out != null) {
        redacted = out.append(redacted, from, redacted.length()).toString();
      }
    }
    if (passages > 0) {
      edits.replace(start, end(parser), quoted(redacted), 0, passages);
    }
  }

  private boolean isCredentialName(String name) {
    Boolean known = credentialNames.get(name);
    if (known != null) {
      return known;
    }
    boolean credential = fields.matches(name);
    if (credentialNames.size() < NAME_CACHE_LIMIT) {
      credentialNames.put(name, credential);
    }
    return credential;
  }

  private static long start(JsonParser parser) {
    return parser.currentTokenLocation().getByteOffset();
  }

  /** Just past the current token, once it has been read whole. */
  private static long end(JsonParser parser) {
    return parser.currentLocation().getByteOffset();
  }

  private static byte[] quoted(String text) {
    byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(text);
    byte[] out = new byte[escaped.length + 2];
    out[0] = '"';
    System.arraycopy(escaped, 0, out, 1, escaped.length);
    out[out.length - 1] = '"';
    return out;
  }

  /** Only a body whose first non-blank byte opens an object or an array is read as JSON. */
  private static boolean startsLikeJson(byte[] body) {
    for (byte b : body) {
      if (b == '{' || b == '[') {
        return true;
      }
      if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
        return false;
      }
    }
    return false;
  }

  /** The replacements found, in the order of the body, and the body they make. */
  private static final class Edits {
    private final byte[] body;
    private final List<long[]> spans = new ArrayList<>();
    private final List<byte[]> replacements = new ArrayList<>();
    private int fields;
    private int passages;

    Edits(byte[] body) {
      this.body = body;
    }

    long length() {
      return body.length;
    }

    void replace(long start, long end, byte[] replacement, int fields, int passages) {
      spans.add(new long[] {start, Math.min(end, body.length)});
      replacements.add(replacement);
      this.fields += fields;
      this.passages += passages;
    }

    Redacted result() {
      if (spans.isEmpty()) {
        return new Redacted(body, 0, 0);
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
      int from = 0;
      for (int i = 0; i < spans.size(); i++) {
        int start = (int) spans.get(i)[0];
        out.write(body, from, start - from);
        out.writeBytes(replacements.get(i));
        from = (int) spans.get(i)[1];
      }
      out.write(body, from, body.length - from);
      return new Redacted(out.toByteArray(), fields, passages);
    }
  }

  /** Each rule checked: not blank, and no quote or control character, which no field name needs. */
  private static List<String> fieldRules(List<String> rules) {
    for (String rule : rules) {
      if (rule.isBlank() || rule.chars().anyMatch(c -> c == '"' || c < 0x20)) {
        throw new IllegalArgumentException("'" + rule + "' is not a JSON field name rule");
      }
    }
    return List.copyOf(rules);
  }

  /** Regular expressions, one per line; blank lines are skipped. */
  private static final class PatternsType implements ConfigType<List<Pattern>> {
    @Override
    public List<Pattern> parse(String key, String raw) {
      List<Pattern> patterns = new ArrayList<>();
      for (String line : raw.split("\\R")) {
        if (line.isBlank()) {
          continue;
        }
        try {
          patterns.add(Pattern.compile(line.strip()));
        } catch (PatternSyntaxException e) {
          throw new ConfigException(
              key + ": '" + line.strip() + "' is not a regular expression: " + e.getDescription());
        }
      }
      return List.copyOf(patterns);
    }

    @Override
    public String format(List<Pattern> value) {
      List<String> lines = new ArrayList<>();
      for (Pattern pattern : value) {
        lines.add(pattern.pattern());
      }
      return String.join("\n", lines);
    }

    @Override
    public String describe() {
      return "regular expressions, one per line";
    }
  }
}
