package io.prefixlog.core.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Sha256Test {
  @Test
  void shouldGiveTheStandardDigestOnEveryCallWithTheThreadsDigestReused() {
    // Given: FIPS 180-2's test vectors
    byte[] abc = "abc".getBytes(StandardCharsets.US_ASCII);
    String abcDigest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    String emptyDigest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    // When: digests one after the other on one thread, a slice among them
    String first = Sha256.hex(abc);
    String empty = Sha256.hex(new byte[0]);
    String slice = Sha256.hex("xxabcxx".getBytes(StandardCharsets.US_ASCII), 2, 3);
    String again = Sha256.hex(abc);

    // Then
    assertThat(first).isEqualTo(abcDigest);
    assertThat(empty).isEqualTo(emptyDigest);
    assertThat(slice).isEqualTo(abcDigest);
    assertThat(again).isEqualTo(abcDigest);
  }
}
