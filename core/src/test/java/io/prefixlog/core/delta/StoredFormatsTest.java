package io.prefixlog.core.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaOp;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stream app's stored formats: base records and session states, written and read back. */
class StoredFormatsTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldRebuildABodyFromItsBaseRecordsExactly() throws DeltaException {
    byte[] first = utf8("{\"messages\":[{\"role\":\"user\",\"content\":\"ünïcödé 😀 hello\"}]}");
    byte[] second =
        utf8(
            "{\"messages\":[{\"role\":\"user\",\"content\":\"ünïcödé 😀 hello\"},"
                + "{\"role\":\"assistant\",\"content\":\"héllo 🍞 back\"}]}");
    EncodedDelta delta = new DeltaEncoder(17).encode(first, second);

    BaseRecordCodec.Decoded whole = BaseRecordCodec.decode(BaseRecordCodec.whole(first));
    BaseRecordCodec.Decoded ops = BaseRecordCodec.decode(BaseRecordCodec.ops(delta.ops()));

    assertThat(whole.whole()).isTrue();
    assertThat(whole.body()).isEqualTo(first);
    assertThat(ops.whole()).isFalse();
    assertThat(ops.ops()).isEqualTo(delta.ops());
    assertThat(DeltaDecoder.apply(whole.body(), ops.ops())).isEqualTo(second);
    assertThat(BaseRecordCodec.ops(delta.ops()).length).isLessThan(second.length);
  }

  @Test
  void shouldRefuseBaseRecordsItCannotRead() {
    byte[] record = BaseRecordCodec.ops(List.of(new DeltaOp.Insert("abc"), new DeltaOp.Copy(3, 9)));
    assertThatThrownBy(() -> BaseRecordCodec.decode(Arrays.copyOf(record, record.length - 1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BaseRecordCodec.decode(new byte[] {2, 0, 1}))
        .hasMessageContaining("not a base record of version 1");
    assertThatThrownBy(() -> BaseRecordCodec.decode(new byte[] {1, 7}))
        .hasMessageContaining("unknown base record kind");
    assertThatThrownBy(() -> BaseRecordCodec.decode(new byte[0]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldWriteAndReadASessionStateWithItsBaseLog() {
    byte[] body = utf8("x".repeat(5000));
    BaseInfo newest =
        new BaseInfo(41, Sha256.hex(body), 3, body.length, PrefixFingerprint.of(body));
    BaseInfo older = new BaseInfo(38, Sha256.hex(utf8("y")), 0, 1, PrefixFingerprint.of(utf8("y")));
    BaseLog log =
        BaseLog.of(
            List.of(
                new BaseLog.Entry(38, true),
                new BaseLog.Entry(39, false),
                new BaseLog.Entry(41, false)));
    SessionState state =
        new SessionState("0123abcd-chain", 42, 1_764_000_000_123L, List.of(newest, older), log);

    byte[] bytes = SessionStateCodec.encode(state);
    SessionState back = SessionStateCodec.decode(bytes);

    assertThat(back).isEqualTo(state);
    assertThat(back.isLegacy()).isFalse();
    // Two bases with their digests and fingerprints, three log entries: well under 200 bytes
    assertThat(bytes.length).isLessThan(200);
  }

  @Test
  void shouldReadAVersion2StateAsLegacyWhoseBasesAreWholeBodies() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(2);
      out.writeUTF("0123abcd-chain");
      out.writeLong(5);
      out.writeLong(1_764_000_000_000L);
      out.writeShort(1);
      out.writeLong(4);
      out.writeUTF("ab".repeat(32));
      out.writeInt(1);
      out.writeInt(300);
      out.writeByte(2);
      out.writeLong(-7L);
      out.writeLong(99L);
    }

    SessionState state = SessionStateCodec.decode(bytes.toByteArray());

    assertThat(state.isLegacy()).isTrue();
    assertThat(state.log()).isSameAs(BaseLog.RAW_BODIES);
    assertThat(state.chain()).isEqualTo("0123abcd-chain");
    assertThat(state.bases()).extracting(BaseInfo::seq).containsExactly(4L);
    assertThatThrownBy(() -> SessionStateCodec.encode(state))
        .hasMessageContaining("never written again");
    assertThatThrownBy(() -> SessionStateCodec.decode(new byte[] {9}))
        .hasMessageContaining("unknown session state version 9");
    assertThatThrownBy(
            () ->
                SessionStateCodec.decode(
                    Arrays.copyOf(SessionStateCodec.encode(state.dormant()), 4)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
