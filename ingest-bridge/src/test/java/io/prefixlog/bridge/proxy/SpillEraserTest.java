package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SpillEraser} on real spill directories: an erased session's events leave every segment and
 * every quarantine file, and every other event is still sent, byte for byte and in order.
 */
class SpillEraserTest {
  private static final String ERASED = "0123456789abcdef0123456789abcdef";
  private static final String KEPT = "fedcba9876543210fedcba9876543210";
  private static final String OTHER = "00112233445566778899aabbccddeeff";
  private static final long MAX = 1 << 20;

  @TempDir Path dir;

  @Test
  void shouldRemoveTheSessionsEventsAndKeepEveryOtherUnsentEventByteForByte() throws Exception {
    // Given: 12 events of three sessions over several segments, the first two sent, in records of
    // version 2 (the capture time under the checksum, which the rewrite must keep too)
    List<EncodedEvent> events = new ArrayList<>();
    String[] sessions = {ERASED, KEPT, OTHER};
    for (int i = 0; i < 12; i++) {
      events.add(event(sessions[i % 3], i));
    }
    try (SpillStore store = new SpillStore(dir, MAX, 600, SpillStore.RecordFormat.V2)) {
      for (EncodedEvent e : events) {
        assertThat(store.append(e)).isTrue();
      }
      store.acknowledge(store.next(2, MAX));
    }
    assertThat(filesHolding(ERASED)).isNotEmpty();

    // When
    SpillEraser.Result result = SpillEraser.erase(dir, Set.of(ERASED));

    // Then: no file names the session; the unsent events of the others come out as they went in
    assertThat(filesHolding(ERASED)).isEmpty();
    assertThat(filesHolding("secret-body-of-" + ERASED)).isEmpty();
    assertThat(result.eventsErased()).isEqualTo(4);
    List<EncodedEvent> expected =
        events.subList(2, 12).stream().filter(e -> !e.key().equals(ERASED)).toList();
    try (SpillStore store = new SpillStore(dir, MAX, 600, SpillStore.RecordFormat.V1)) {
      assertThat(store.pending()).isEqualTo(expected.size());
      List<SpillStore.Spilled> read = store.next(100, MAX);
      assertThat(store.quarantined()).isZero();
      assertThat(read).hasSize(expected.size());
      for (int i = 0; i < expected.size(); i++) {
        assertThat(read.get(i).key()).isEqualTo(expected.get(i).key());
        assertThat(read.get(i).value()).isEqualTo(expected.get(i).value());
        assertThat(read.get(i).captureMs()).isEqualTo(expected.get(i).captureMs());
      }
    }
    assertThat(result.eventsKept()).isEqualTo(expected.size());
    assertThat(result.acknowledgedDropped()).isEqualTo(1);
    assertThat(result.quarantinePiecesRedacted()).isZero();
  }

  @Test
  void shouldZeroTheSessionsPiecesOfAQuarantinedRunAndKeepTheOthersBytes() throws Exception {
    // Given: four events, the first two corrupted, so that one quarantined run holds both
    long[] offsets = new long[5];
    List<EncodedEvent> events =
        List.of(event(ERASED, 0), event(KEPT, 1), event(ERASED, 2), event(KEPT, 3));
    try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V1)) {
      for (int i = 0; i < events.size(); i++) {
        offsets[i] = store.bytes();
        store.append(events.get(i));
      }
      offsets[4] = store.bytes();
    }
    Path segment = segments().get(0);
    flipByte(segment, offsets[1] - 2); // the first record's checksum
    flipByte(segment, offsets[2] - 2); // the second's
    byte[] keptPiece = slice(Files.readAllBytes(segment), offsets[1], offsets[2]);
    try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V1)) {
      assertThat(store.quarantined()).isEqualTo(1);
    }
    Path quarantined = quarantineFiles().get(0);
    assertThat(Files.size(quarantined)).isEqualTo(offsets[2] - offsets[0]);

    // When
    SpillEraser.Result result = SpillEraser.erase(dir, Set.of(ERASED));

    // Then: the session's piece is zeros of its length, the other's piece its exact bytes
    byte[] after = Files.readAllBytes(quarantined);
    assertThat(after).hasSize((int) (offsets[2] - offsets[0]));
    assertThat(slice(after, 0, offsets[1] - offsets[0]))
        .isEqualTo(new byte[(int) (offsets[1] - offsets[0])]);
    assertThat(slice(after, offsets[1] - offsets[0], after.length)).isEqualTo(keptPiece);
    assertThat(filesHolding(ERASED)).isEmpty();
    assertThat(result.quarantineFilesRedacted()).isEqualTo(1);
    assertThat(result.quarantinePiecesRedacted()).isEqualTo(1);
    assertThat(result.eventsErased()).isEqualTo(1);
    try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V1)) {
      List<SpillStore.Spilled> read = store.next(10, MAX);
      assertThat(read).hasSize(1);
      assertThat(read.get(0).value()).isEqualTo(events.get(3).value());
    }
  }

  @Test
  void shouldRefuseASpillDirectoryThatIsOpen() throws Exception {
    // Given
    try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V1)) {
      store.append(event(ERASED, 0));

      // When / Then
      assertThatThrownBy(() -> SpillEraser.erase(dir, Set.of(ERASED)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("spill directory");
      assertThat(store.next(10, MAX)).hasSize(1);
    }
  }

  @Test
  void shouldLeaveASpillWithoutTheSessionUntouched() throws Exception {
    // Given
    try (SpillStore store = new SpillStore(dir, MAX, MAX, SpillStore.RecordFormat.V1)) {
      store.append(event(KEPT, 0));
      store.append(event(OTHER, 1));
    }
    byte[] before = Files.readAllBytes(segments().get(0));

    // When
    SpillEraser.Result result = SpillEraser.erase(dir, Set.of(ERASED));

    // Then
    assertThat(result.segmentsRewritten()).isZero();
    assertThat(Files.readAllBytes(segments().get(0))).isEqualTo(before);
  }

  // --- helpers ---

  /** An event as the proxy spills it: key the session, the session key and a body in the JSON. */
  private static EncodedEvent event(String session, int i) {
    return new EncodedEvent(
        session,
        ("{\"session_key\":\""
                + session
                + "\",\"n\":"
                + i
                + ",\"body\":\"secret-body-of-"
                + session
                + "-"
                + i
                + "\"}")
            .getBytes(StandardCharsets.UTF_8),
        "r" + i,
        1_800_000_000_000L + i);
  }

  /** Files under the spill directory whose bytes contain {@code text}. */
  private List<Path> filesHolding(String text) throws IOException {
    byte[] needle = text.getBytes(StandardCharsets.UTF_8);
    List<Path> holding = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        byte[] bytes = Files.readAllBytes(f);
        for (int i = 0; i + needle.length <= bytes.length; i++) {
          if (Arrays.equals(bytes, i, i + needle.length, needle, 0, needle.length)) {
            holding.add(f);
            break;
          }
        }
      }
    }
    return holding;
  }

  private List<Path> segments() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
    }
  }

  private List<Path> quarantineFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve(SpillStore.QUARANTINE_DIR))) {
      return files.sorted().toList();
    }
  }

  private static byte[] slice(byte[] bytes, long from, long to) {
    return Arrays.copyOfRange(bytes, (int) from, (int) to);
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
}
