package io.prefixlog.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class BodyRedactionTest {
  private static final Pattern EMAIL = Pattern.compile("[\\w.+-]+@[\\w-]+\\.[\\w.]+");

  private static BodyRedaction.Redacted redact(BodyRedaction redaction, String body) {
    return redaction.apply(body.getBytes(StandardCharsets.UTF_8));
  }

  private static String text(BodyRedaction.Redacted redacted) {
    return new String(redacted.bytes(), StandardCharsets.UTF_8);
  }

  @Test
  void shouldRedactCredentialNamedValuesAtAnyDepthAndKeepEveryOtherByte() {
    // Given: the default rules; a body with odd spacing and multi-byte characters, a key at the top
    // and a password deep down
    BodyRedaction defaults = BodyRedaction.of(BodyRedaction.DEFAULT_FIELDS, List.of());
    String body =
        "{ \"model\" : \"m日本é\",\"api_key\":\"sk-1\\\"2\" ,\n"
            + "\"metadata\":{\"db\":{\"Password\":  \"hunter2\", \"port\": 5432,"
            + " \"client_secret\": 12345.5}},\"max_tokens\":100}";

    // When
    BodyRedaction.Redacted redacted = redact(defaults, body);

    // Then
    assertThat(text(redacted))
        .isEqualTo(
            "{ \"model\" : \"m日本é\",\"api_key\":\"[REDACTED]\" ,\n"
                + "\"metadata\":{\"db\":{\"Password\":  \"[REDACTED]\", \"port\": 5432,"
                + " \"client_secret\": \"[REDACTED]\"}},\"max_tokens\":100}");
    assertThat(redacted.fields()).isEqualTo(3);
    assertThat(redacted.passages()).isZero();
  }

  @Test
  void shouldLeaveStructureUnderACredentialNameAlone() {
    // Given: a tool whose schema declares a password parameter
    String body =
        "{\"tools\":[{\"function\":{\"parameters\":{\"properties\":{\"password\":"
            + "{\"type\":\"string\"}},\"required\":[\"password\"]}}}]}";

    // When
    BodyRedaction.Redacted redacted =
        redact(BodyRedaction.of(BodyRedaction.DEFAULT_FIELDS, List.of()), body);

    // Then
    assertThat(redacted.changed()).isFalse();
    assertThat(text(redacted)).isEqualTo(body);
  }

  @Test
  void shouldReplaceEachMatchedPassageInsideStringsOnly() {
    // Given: e-mail addresses in two messages, one in a field name, and a unicode escape before one
    String body =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"mail a@b.io or c.d@e-f.org \\u00e9\"},"
            + "{\"role\":\"user\",\"content\":\"nothing here\"}],\"x@y.zz\":1}";

    // When
    BodyRedaction.Redacted redacted = redact(BodyRedaction.of(List.of(), List.of(EMAIL)), body);

    // Then: the one string written again, with its escape as JSON writes it; the rest untouched
    assertThat(text(redacted))
        .isEqualTo(
            "{\"messages\":[{\"role\":\"user\",\"content\":\"mail [REDACTED] or [REDACTED] é\"},"
                + "{\"role\":\"user\",\"content\":\"nothing here\"}],\"x@y.zz\":1}");
    assertThat(redacted.passages()).isEqualTo(2);
    assertThat(redacted.fields()).isZero();
  }

  @Test
  void shouldReturnTheSameBytesWhenNothingMatchesOrTheBodyIsNotJson() {
    BodyRedaction redaction = BodyRedaction.of(BodyRedaction.DEFAULT_FIELDS, List.of(EMAIL));
    byte[] json = "{\"model\":\"m\",\"messages\":[]}".getBytes(StandardCharsets.UTF_8);
    byte[] form = "api_key=sk-1&mail=a@b.io".getBytes(StandardCharsets.UTF_8);

    assertThat(redaction.apply(json).bytes()).isSameAs(json);
    assertThat(redaction.apply(form).bytes()).isSameAs(form);
    assertThat(BodyRedaction.none().apply(json).bytes()).isSameAs(json);
  }

  @Test
  void shouldRedactACutValueWholeWhenTheBodyWasTruncated() {
    // Given: a body cut by the capture limit inside a credential, and one cut inside a message
    BodyRedaction redaction = BodyRedaction.of(BodyRedaction.DEFAULT_FIELDS, List.of(EMAIL));
    String cutKey = "{\"model\":\"m\",\"api_key\":\"sk-abcdef";
    String cutMessage = "{\"api_key\":\"sk-1\",\"messages\":[{\"content\":\"write to a@b.i";

    // Then: nothing of either value is left
    assertThat(text(redact(redaction, cutKey)))
        .isEqualTo("{\"model\":\"m\",\"api_key\":\"[REDACTED]\"");
    assertThat(text(redact(redaction, cutMessage)))
        .isEqualTo("{\"api_key\":\"[REDACTED]\",\"messages\":[{\"content\":\"[REDACTED]\"");
  }

  private static List<Pattern> patterns(String raw) {
    return BodyRedaction.PATTERNS.type().parse(BodyRedaction.PATTERNS.name(), raw);
  }

  private static WildcardNames fields(String raw) {
    return BodyRedaction.FIELDS.type().parse(BodyRedaction.FIELDS.name(), raw);
  }

  @Test
  void shouldReadTheSettingsAndRefuseWhatCannotBeARule() {
    assertThat(patterns("a@b\n\n  \\d{4}-\\d{4}  \n"))
        .extracting(Pattern::pattern)
        .containsExactly("a@b", "\\d{4}-\\d{4}");
    assertThatThrownBy(() -> patterns("(unclosed"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PREFIXLOG_REDACT_PATTERNS")
        .hasMessageContaining("(unclosed");
    assertThat(fields("user_email, *ssn*").matches("customer_SSN")).isTrue();
    assertThatThrownBy(() -> fields("bad\"name")).isInstanceOf(ConfigException.class);
    assertThat(Arrays.asList(BodyRedaction.FIELDS.defaultValue().toString().split(",")))
        .containsExactlyElementsOf(BodyRedaction.DEFAULT_FIELDS);
  }
}
