package io.prefixlog.schemas.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BodyEncodingTest {

  private static final HexFormat HEX = HexFormat.ofDelimiter(" ");

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "empty body                    | ''",
        "ASCII JSON                    | 7b 22 61 22 3a 31 7d",
        "two-byte ü                    | c3 bc",
        "three-byte €                  | e2 82 ac",
        "four-byte 🚀                  | f0 9f 9a 80",
        "U+10FFFF, the last code point | f4 8f bf bf",
        "NUL byte                      | 00",
        "byte order mark kept          | ef bb bf 7b 7d",
        "noncharacter U+FFFF           | ef bf bf",
        "U+D7FF, before the surrogates | ed 9f bf",
        "U+E000, after the surrogates  | ee 80 80",
      })
  void shouldKeepWellFormedUtf8AsText(String what, String hex) {
    // Given
    byte[] bytes = HEX.parseHex(hex);

    // When
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(bytes);

    // Then
    assertThat(encoded.encoding()).isEqualTo(BodyEncoding.UTF_8);
    assertThat(encoded.text()).isEqualTo(new String(bytes, StandardCharsets.UTF_8));
    assertThat(encoded.encoding().decode(encoded.text())).isEqualTo(bytes);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "lone high surrogate U+D800            | 7b ed a0 80 7d",
        "lone low surrogate U+DFFF             | ed bf bf",
        "surrogate pair as two 3-byte (CESU-8) | ed a0 bd ed ba 80",
        "overlong NUL                          | c0 80",
        "overlong slash, two bytes             | c1 af",
        "overlong slash, three bytes           | e0 80 af",
        "overlong slash, four bytes            | f0 80 80 af",
        "beyond U+10FFFF                       | f4 90 80 80",
        "five-byte lead                        | f8 88 80 80 80",
        "byte 0xFF                             | ff",
        "truncated two-byte at the end         | 61 c3",
        "truncated three-byte at the end       | 61 e2 82",
        "truncated four-byte at the end        | 61 f0 9f 9a",
        "truncated sequence before ASCII       | e2 82 61",
        "lone continuation byte                | 80",
        "Latin-1 text                          | 43 61 66 e9",
      })
  void shouldFallBackToBase64ExactlyForInvalidUtf8(String what, String hex) {
    // Given
    byte[] bytes = HEX.parseHex(hex);

    // When
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(bytes);

    // Then
    assertThat(encoded.encoding()).isEqualTo(BodyEncoding.BASE64);
    assertThat(encoded.text()).isEqualTo(Base64.getEncoder().encodeToString(bytes));
    assertThat(encoded.encoding().decode(encoded.text())).isEqualTo(bytes);
    assertThat(BodyEncoding.strictUtf8(bytes)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"utf-8, UTF_8", "base64, BASE64"})
  void shouldReadItsOwnWireNames(String wireName, BodyEncoding encoding) {
    // Given
    String name = wireName;

    // When
    Optional<BodyEncoding> read = BodyEncoding.fromWireName(name);

    // Then
    assertThat(read).contains(encoding);
    assertThat(encoding.wireName()).isEqualTo(name);
  }

  @ParameterizedTest(name = "[{index}] \"{0}\"")
  @CsvSource({"UTF-8", "utf8", "latin1", "''", "BASE64"})
  void shouldNotReadOtherWireNames(String wireName) {
    // Given
    String name = wireName;

    // When
    Optional<BodyEncoding> read = BodyEncoding.fromWireName(name);

    // Then
    assertThat(read).isEmpty();
  }
}
