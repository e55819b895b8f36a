package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillStoreTest {
  private static EncodedEvent event(int i) {
    return new EncodedEvent(
        "key" + (i % 3),
        ("{\"n\":" + i + ",\"pad\":\"" + "x".repeat(100) + "\"}").getBytes(StandardCharsets.UTF_8),
        "r" + i,
        1_800_000_000_000L + i);
  }

  private static List<String> values(List<SpillStore.Spilled> records) {
    return records.stream()
        .map(r -> new String(r.value(), StandardCharsets.UTF_8).replaceAll(",\"pad.*", ""))
        .toList();
  }

  @Test
  void shouldReadBackInOrderAndNeverReturnAnAcknowledgedRecordAgainAcrossReopens(@TempDir Path dir)
      throws Exception {
    // Given: records over several small segments
    try (SpillStore store = new SpillStore(dir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V2)) {
      for (int i = 0; i < 1000; i++) {
        assertThat(store.append(event(i))).isTrue();
      }
      assertThat(store.pending()).isEqualTo(1000);

      // When: a batch is read and only some of it acknowledged (a failure in between)
      List<SpillStore.Spilled> batch = store.next(10, 1 << 20);
      assertThat(values(batch))
          .containsExactly(
              "{\"n\":0",
              "{\"n\":1",
              "{\"n\":2",
              "{\"n\":3",
              "{\"n\":4",
              "{\"n\":5",
              "{\"n\":6",
              "{\"n\":7",
              "{\"n\":8",
              "{\"n\":9");
      store.acknowledge(List.of(batch.get(0), batch.get(1), batch.get(3)));
    }

    // Then: after reopening, the acknowledged ones are gone and the rest keep their order
    try (SpillStore store = new SpillStore(dir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V2)) {
      assertThat(store.pending()).isEqualTo(997);
      assertThat(values(store.next(3, 1 << 20)))
          .containsExactly("{\"n\":2", "{\"n\":4", "{\"n\":5");
      // When: everything is acknowledged
      List<SpillStore.Spilled> all;
      while (!(all = store.next(100, 1 << 20)).isEmpty()) {
        store.acknowledge(all);
      }
      assertThat(store.pending()).isZero();
      assertThat(store.bytes()).isZero();
    }
    try (Stream<Path> files = Files.list(dir)) {
      // Only the directory's lock file stays.
      assertThat(files.map(f -> f.getFileName().toString())).containsExactly(SpillStore.LOCK_FILE);
    }
  }

  @Test
  void shouldRefuseBeyondItsBound(@TempDir Path dir) throws Exception {
    try (SpillStore store = new SpillStore(dir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V2)) {
      int accepted = 0;
      while (store.append(event(accepted))) {
        accepted++;
      }
      assertThat(store.bytes()).isLessThanOrEqualTo(1 << 20);
      assertThat(accepted).isGreaterThan(7000);
      assertThat(store.pending()).isEqualTo(accepted);
    }
  }

  @Test
  void shouldCutATornRecordAtTheEndOnOpen(@TempDir Path dir) throws Exception {
    // Given: two records, then half of a third (a crash mid-append)
    try (SpillStore store = new SpillStore(dir, 1 << 20, 1 << 20, SpillStore.RecordFormat.V2)) {
      store.append(event(1));
      store.append(event(2));
    }
    Path log;
    try (Stream<Path> files = Files.list(dir)) {
      log = files.filter(f -> f.toString().endsWith(".log")).findFirst().orElseThrow();
    }
    try (FileChannel channel = FileChannel.open(log, StandardOpenOption.APPEND)) {
      channel.write(java.nio.ByteBuffer.wrap(new byte[] {0x50, 0x4c, 0x53, 0x31, 0, 0, 0, 4, 0}));
    }

    // When
    try (SpillStore store = new SpillStore(dir, 1 << 20, 1 << 20, SpillStore.RecordFormat.V2)) {
      // Then
      assertThat(store.pending()).isEqualTo(2);
      assertThat(values(store.next(10, 1 << 20))).containsExactly("{\"n\":1", "{\"n\":2");
      store.append(event(3));
      assertThat(values(store.next(10, 1 << 20)))
          .containsExactly("{\"n\":1", "{\"n\":2", "{\"n\":3");
    }
  }

  @Test
  void shouldKeepEachRecordsCaptureTimeAcrossReopens(@TempDir Path dir) throws Exception {
    // Given: an event with its capture time, and one marked for the bridge's clock
    try (SpillStore store = new SpillStore(dir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V2)) {
      store.append(event(1));
      store.append(event(2).atSendTime());
    }

    // When
    List<SpillStore.Spilled> read;
    try (SpillStore store = new SpillStore(dir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V2)) {
      read = store.next(10, 1 << 20);
    }

    // Then
    assertThat(read.stream().map(SpillStore.Spilled::captureMs).toList())
        .containsExactly(1_800_000_000_001L, RecordTime.SEND_TIME);
  }

  @Test
  void shouldReadARecordOfAnEarlierBridgeWithoutACaptureTime(@TempDir Path dir) throws Exception {
    // Given: a segment as an earlier bridge wrote it: magic PLS1, lengths, key, value, CRC32
    byte[] key = "key0".getBytes(StandardCharsets.UTF_8);
    byte[] value = "{\"n\":0}".getBytes(StandardCharsets.UTF_8);
    Files.write(dir.resolve(String.format("spill-%020d.log", 0)), earlierBridgeRecord(key, value));

    // When
    List<SpillStore.Spilled> read;
    try (SpillStore store = new SpillStore(dir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V2)) {
      read = store.next(10, 1 << 20);
      store.acknowledge(read);
    }

    // Then: read whole, to be resent with the bridge's clock as before, and acknowledged
    assertThat(read).hasSize(1);
    assertThat(read.get(0).key()).isEqualTo("key0");
    assertThat(read.get(0).value()).isEqualTo(value);
    assertThat(read.get(0).captureMs()).isEqualTo(RecordTime.SEND_TIME);
    try (SpillStore store = new SpillStore(dir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V2)) {
      assertThat(store.pending()).isZero();
    }
  }

  @Test
  void shouldWriteVersion1RecordsByteForByteAsEveryEarlierBridgeDoes(@TempDir Path dir)
      throws Exception {
    // Given: a store that writes version 1, the rollback-safe format
    EncodedEvent event = event(0);
    try (SpillStore store = new SpillStore(dir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V1)) {
      // When
      store.append(event);
    }

    // Then: the segment holds the record exactly as a bridge built before version 2 wrote it
    // (magic PLS1, lengths, key, value, CRC32 of key and value), so such a bridge reads it
    assertThat(Files.readAllBytes(dir.resolve(String.format("spill-%020d.log", 0))))
        .isEqualTo(
            earlierBridgeRecord(event.key().getBytes(StandardCharsets.UTF_8), event.value()));
  }

  @Test
  void shouldReadBothVersionsInOrderWhicheverItWrites(@TempDir Path dir) throws Exception {
    // Given: version 1 records, then version 2 records appended after a restart, then version 1
    // again after another (an upgrade to PREFIXLOG_SPILL_FORMAT=2 and a return from it)
    try (SpillStore store = new SpillStore(dir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V1)) {
      store.append(event(1));
      store.append(event(2));
    }
    try (SpillStore store = new SpillStore(dir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V2)) {
      assertThat(store.pending()).isEqualTo(2);
      store.append(event(3));
    }
    try (SpillStore store = new SpillStore(dir, 1 << 20, 64 << 10, SpillStore.RecordFormat.V1)) {
      store.append(event(4));

      // When
      List<SpillStore.Spilled> read = store.next(10, 1 << 20);

      // Then: every record in order; only the version 2 one kept its capture time
      assertThat(values(read)).containsExactly("{\"n\":1", "{\"n\":2", "{\"n\":3", "{\"n\":4");
      assertThat(read.stream().map(SpillStore.Spilled::captureMs).toList())
          .containsExactly(
              RecordTime.SEND_TIME, RecordTime.SEND_TIME, 1_800_000_000_003L, RecordTime.SEND_TIME);
      assertThat(store.quarantined()).isZero();
      store.acknowledge(read);
      assertThat(store.pending()).isZero();
    }
  }

  /** A record as a bridge built before spill records version 2 wrote it. */
  private static byte[] earlierBridgeRecord(byte[] key, byte[] value) {
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(key);
    crc.update(value);
    java.nio.ByteBuffer record = java.nio.ByteBuffer.allocate(12 + key.length + value.length + 4);
    record.putInt(0x504c5331).putInt(key.length).putInt(value.length);
    record.put(key).put(value).putInt((int) crc.getValue());
    return record.array();
  }
}
