package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spill store against its own corruption (issue 12, item 5): a record whose bytes changed on
 * disk, a length that makes no sense, acknowledgements that outlived the records they name. Each
 * test corrupts real segment files by hand.
 */
class SpillCorruptionTest {
  private static final long MAX = 1 << 20;

  @TempDir Path dir;

  @Test
  void shouldQuarantineARecordThatFailsItsChecksumOnReadAndGoOnWithTheRest() throws Exception {
    // Given
    try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V2)) {
      long[] offsets = appendFive(store);
      flipByte(segment(), offsets[2] + 20);

      // When
      List<SpillStore.Spilled> read = store.next(10, MAX);

      // Then
      assertThat(values(read)).containsExactly("n0", "n1", "n3", "n4");
      assertThat(store.quarantined()).isEqualTo(1);
      assertThat(store.pending()).isEqualTo(4);
      assertThat(quarantineFiles()).hasSize(1);
      assertThat(Files.size(quarantineFiles().get(0))).isEqualTo(offsets[3] - offsets[2]);
      store.acknowledge(read);
      assertThat(store.pending()).isZero();
    }
  }

  @Test
  void shouldQuarantineARecordThatFailsItsChecksumWhenTheStoreOpens() throws Exception {
    // Given: a closed store whose third record's checksum no longer matches
    long[] offsets;
    try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V2)) {
      offsets = appendFive(store);
    }
    flipByte(segment(), offsets[3] - 2);

    // When
    try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V2)) {

      // Then
      assertThat(store.pending()).isEqualTo(4);
      assertThat(values(store.next(10, MAX))).containsExactly("n0", "n1", "n3", "n4");
      assertThat(store.quarantined()).isEqualTo(1);
    }
  }

  @Test
  void shouldOpenAtOnceWhenARecordHeaderHoldsANegativeLength() throws Exception {
    // Given
    long[] offsets;
    try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V2)) {
      offsets = appendFive(store);
    }
    writeInt(segment(), offsets[1] + 4, Integer.MIN_VALUE);

    // When / Then: no loop, and every other record is still there
    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () -> {
          try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V2)) {
            assertThat(values(store.next(10, MAX))).containsExactly("n0", "n2", "n3", "n4");
            assertThat(store.quarantined()).isEqualTo(1);
          }
        });
  }

  @Test
  void shouldResendARecordAppendedWhereAnAcknowledgementOutlivedACrash() throws Exception {
    // Given: n1 and n2 were acknowledged (acks forced), then a power loss took the unsynced log
    // back to the end of n0
    long[] offsets;
    try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V2)) {
      offsets = appendFive(store);
      List<SpillStore.Spilled> read = store.next(3, MAX);
      store.acknowledge(List.of(read.get(1), read.get(2)));
    }
    try (FileChannel log = FileChannel.open(segment(), StandardOpenOption.WRITE)) {
      log.truncate(offsets[1]);
    }

    // When: the bridge comes back and spills a new event, at the offset n1 had
    try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V2)) {
      assertThat(store.append(event(9))).isTrue();

      // Then: it is read back, not taken for the acknowledged n1
      assertThat(values(store.next(10, MAX))).containsExactly("n0", "n9");
      assertThat(store.pending()).isEqualTo(2);
    }
  }

  // --- helpers ---

  private static EncodedEvent event(int i) {
    return new EncodedEvent(
        "key" + i,
        ("{\"n\":\"n" + i + "\",\"pad\":\"" + "x".repeat(60) + "\"}")
            .getBytes(StandardCharsets.UTF_8),
        "r" + i,
        1_800_000_000_000L + i);
  }

  /** Appends n0..n4 and returns the offset of each record, plus the end, in one segment. */
  private static long[] appendFive(SpillStore store) throws IOException {
    long[] offsets = new long[6];
    for (int i = 0; i < 5; i++) {
      offsets[i] = store.bytes();
      assertThat(store.append(event(i))).isTrue();
    }
    offsets[5] = store.bytes();
    return offsets;
  }

  private static List<String> values(List<SpillStore.Spilled> records) {
    return records.stream()
        .map(r -> new String(r.value(), StandardCharsets.UTF_8).replaceAll("^\\{\"n\":\"|\".*", ""))
        .toList();
  }

  private Path segment() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(".log"))
          .findFirst()
          .orElseThrow();
    }
  }

  private List<Path> quarantineFiles() throws IOException {
    Path quarantine = dir.resolve(SpillStore.QUARANTINE_DIR);
    if (!Files.isDirectory(quarantine)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(quarantine)) {
      return files.toList();
    }
  }

  private static void flipByte(Path file, long position) throws IOException {
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, position);
      one.flip();
      byte b = one.get();
      channel.write(ByteBuffer.wrap(new byte[] {(byte) (b ^ 0x20)}), position);
    }
  }

  private static void writeInt(Path file, long position, int value) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.allocate(4).putInt(value).flip(), position);
    }
  }
}
