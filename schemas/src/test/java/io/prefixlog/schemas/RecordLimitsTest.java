package io.prefixlog.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import org.junit.jupiter.api.Test;

class RecordLimitsTest {
  @Test
  void shouldAllowTwiceTheBodyPlusOneMebibytePerRecord() {
    // Given
    long body = 16L << 20;

    // When
    long record = RecordLimits.maxRecordBytes(body);

    // Then
    assertThat(record).isEqualTo(34_603_008L);
    assertThat(RecordLimits.DEFAULT_MAX_RECORD_BYTES).isEqualTo(34_603_008L);
    assertThat(RecordLimits.maxRecordBytesInt(4096)).isEqualTo(1_056_768);
    assertThat(RecordLimits.maxRecordBytesInt(2L << 30)).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void shouldKeepAsMuchOfADeadLetterValueAsFitsBesideTheKeyAndTheHeadroom() {
    // Given: a 1 MiB + 8 KiB record limit and a 32-byte key (44 characters of base64)
    long limit = 1_056_768L;

    // When
    long budget = RecordLimits.deadLetterValueBudget(limit, 32);

    // Then: (1056768 - 65536 - 32 - 44) / 4 * 3 bytes, whose base64 is at most the room left
    assertThat(budget).isEqualTo(743_367L);
    assertThat(Base64.getEncoder().encodeToString(new byte[(int) budget]).length())
        .isLessThanOrEqualTo((int) (limit - RecordLimits.DEAD_LETTER_HEADROOM_BYTES - 32 - 44));
    assertThat(RecordLimits.deadLetterValueBudget(limit, 1_000_000)).isZero();
  }

  @Test
  void shouldCountPaddedBase64Characters() {
    // Given
    byte[][] inputs = {new byte[0], new byte[1], new byte[2], new byte[3], new byte[4]};

    // When / Then
    for (byte[] input : inputs) {
      assertThat(RecordLimits.base64Length(input.length))
          .as("%d bytes", input.length)
          .isEqualTo(Base64.getEncoder().encodeToString(input).length());
    }
  }

  @Test
  void shouldRejectALimitThatIsNotPositive() {
    // Given
    long body = 0;

    // When / Then
    assertThatThrownBy(() -> RecordLimits.maxRecordBytes(body))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxBodyBytes must be positive but was 0");
  }
}
