package io.prefixlog.bridge.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.config.ConfigException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KvBridgeConfigTest {

  @Test
  void shouldRefuseWhatZmqMayBufferBeyondTheReceiveMemory() {
    // Given: the count-bounded defaults of before, 100,000 messages of 64 MiB each
    Map<String, String> before =
        Map.of(
            "PREFIXLOG_KV_ENDPOINTS", "tcp://10.0.3.17:5557",
            "PREFIXLOG_KV_RECEIVE_HWM", "100000",
            "PREFIXLOG_KV_MAX_MESSAGE_BYTES", "64MiB");

    // Then
    assertThatThrownBy(() -> KvBridgeConfig.defaults(before))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "PREFIXLOG_KV_RECEIVE_MEMORY (256MiB) is less than 1 subscription(s)"
                + " (PREFIXLOG_KV_ENDPOINTS × PREFIXLOG_KV_DP_RANKS) × 6400192MiB: each needs"
                + " (PREFIXLOG_KV_RECEIVE_HWM 100000 + 2) × PREFIXLOG_KV_MAX_MESSAGE_BYTES 64MiB"
                + " + PREFIXLOG_KV_MAX_VALUES_PER_BATCH 1048576 × 64 bytes; raise it or lower"
                + " those");
  }

  @Test
  void shouldFitTheDefaultsWorstCaseInTheReceiveMemoryWithRoomForMessagesWaiting() {
    // When
    KvBridgeConfig config =
        KvBridgeConfig.defaults(Map.of("PREFIXLOG_KV_ENDPOINTS", "tcp://10.0.3.17:5557"));

    // Then: ZMQ (4 + 1) × 16 MiB, one decoded batch 64 MiB, 112 MiB for messages waiting
    assertThat(config.receiveMemory()).isEqualTo(256L << 20);
    assertThat(config.receiveHwm()).isEqualTo(4);
    assertThat(config.maxMessageBytes()).isEqualTo(16L << 20);
    assertThat(config.receiveBufferBytes()).isEqualTo(112L << 20);
    // and with a replay endpoint, (1 + 1) × 16 MiB for what a replay's socket may hold
    assertThat(
            KvBridgeConfig.defaults(
                    Map.of(
                        "PREFIXLOG_KV_ENDPOINTS", "tcp://10.0.3.17:5557",
                        "PREFIXLOG_KV_REPLAY_ENDPOINTS", "tcp://10.0.3.17:5558"))
                .receiveBufferBytes())
        .isEqualTo(80L << 20);
  }

  @Test
  void shouldShareTheReceiveMemoryAmongSubscriptionsAndRefuseOneWithoutRoomForAMessage() {
    // Given
    Map<String, String> fourRanks =
        Map.of(
            "PREFIXLOG_KV_ENDPOINTS", "tcp://10.0.3.17:5557",
            "PREFIXLOG_KV_DP_RANKS", "0-3",
            "PREFIXLOG_KV_RECEIVE_MEMORY", "1GiB");

    // When
    KvBridgeConfig config = KvBridgeConfig.defaults(fourRanks);

    // Then: 256 MiB each, 112 MiB of it waiting room
    assertThat(config.receiveBufferBytes()).isEqualTo(112L << 20);
    assertThatThrownBy(
            () ->
                KvBridgeConfig.defaults(
                    Map.of(
                        "PREFIXLOG_KV_ENDPOINTS", "tcp://10.0.3.17:5557",
                        "PREFIXLOG_KV_DP_RANKS", "0-3",
                        "PREFIXLOG_KV_RECEIVE_MEMORY", "639MiB")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "PREFIXLOG_KV_RECEIVE_MEMORY (639MiB) is less than 4 subscription(s)"
                + " (PREFIXLOG_KV_ENDPOINTS × PREFIXLOG_KV_DP_RANKS) × 160MiB");
  }

  @Test
  void shouldSubscribeToEveryRankOfEveryEndpointAtPortPlusRank() {
    // When
    KvBridgeConfig config =
        KvBridgeConfig.defaults(
            Map.of(
                "PREFIXLOG_KV_ENDPOINTS", "tcp://10.0.3.17:5557, tcp://[::1]:6000",
                "PREFIXLOG_KV_REPLAY_ENDPOINTS", "tcp://10.0.3.17:5600,-",
                "PREFIXLOG_KV_DP_RANKS", "0-1",
                "PREFIXLOG_KV_TOPIC", "kv",
                "PREFIXLOG_KV_RECEIVE_MEMORY", "768MiB"));

    // Then
    assertThat(config.subscriptions())
        .extracting(s -> s.source().id() + " <- " + s.endpoint() + " replay " + s.replayEndpoint())
        .containsExactly(
            "tcp://10.0.3.17:5557|dp0|kv <- tcp://10.0.3.17:5557 replay tcp://10.0.3.17:5600",
            "tcp://10.0.3.17:5558|dp1|kv <- tcp://10.0.3.17:5558 replay tcp://10.0.3.17:5601",
            "tcp://[::1]:6000|dp0|kv <- tcp://[::1]:6000 replay null",
            "tcp://[::1]:6001|dp1|kv <- tcp://[::1]:6001 replay null");
    assertThat(config.topics().kvEvents().name()).isEqualTo("prefixlog.kv.events");
  }

  @Test
  void shouldUseTheDefaults() {
    // When
    KvBridgeConfig config =
        KvBridgeConfig.defaults(Map.of("PREFIXLOG_KV_ENDPOINTS", "tcp://h:5557"));

    // Then
    assertThat(config.topic()).isEmpty();
    assertThat(config.dataParallelRanks()).containsExactly(0);
    assertThat(config.replayEndpoints()).isEmpty();
    assertThat(config.bootstrapServers()).isEqualTo("127.0.0.1:9092");
    assertThat(config.replayTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.queueRecords()).isEqualTo(10_000);
    assertThat(config.queueBytes()).isEqualTo(64L << 20);
    assertThat(config.decodeLimits())
        .isEqualTo(new io.prefixlog.core.kv.KvDecodeLimits(65_536, 1L << 20));
    assertThat(config.heartbeat()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.handshakeTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.metricsPort()).isEqualTo(9465);
    assertThat(config.subscriptions().get(0).source().id()).isEqualTo("tcp://h:5557|dp0|");
  }

  @Test
  void shouldReadTheDecodeLimits() {
    // When
    KvBridgeConfig config =
        KvBridgeConfig.defaults(
            Map.of(
                "PREFIXLOG_KV_ENDPOINTS", "tcp://h:5557",
                "PREFIXLOG_KV_MAX_HASHES_PER_EVENT", "4096",
                "PREFIXLOG_KV_MAX_VALUES_PER_BATCH", "100000"));

    // Then
    assertThat(config.decodeLimits())
        .isEqualTo(new io.prefixlog.core.kv.KvDecodeLimits(4096, 100_000));
    assertThatThrownBy(
            () ->
                KvBridgeConfig.defaults(
                    Map.of(
                        "PREFIXLOG_KV_ENDPOINTS", "tcp://h:5557",
                        "PREFIXLOG_KV_MAX_HASHES_PER_EVENT", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PREFIXLOG_KV_MAX_HASHES_PER_EVENT");
  }

  @Test
  void shouldOffsetInprocNamesLikeVllmAndRefuseRanksOnIpc() {
    // When
    KvBridgeConfig config =
        KvBridgeConfig.defaults(
            Map.of(
                "PREFIXLOG_KV_ENDPOINTS", "inproc://events",
                "PREFIXLOG_KV_DP_RANKS", "0,2",
                "PREFIXLOG_KV_RECEIVE_MEMORY", "320MiB"));

    // Then
    assertThat(config.subscriptions())
        .extracting(KvBridgeConfig.Subscription::endpoint)
        .containsExactly("inproc://events", "inproc://events_dp2");
    assertThatThrownBy(
            () ->
                KvBridgeConfig.defaults(
                    Map.of(
                        "PREFIXLOG_KV_ENDPOINTS", "ipc:///tmp/kv", "PREFIXLOG_KV_DP_RANKS", "1")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "PREFIXLOG_KV_ENDPOINTS=ipc:///tmp/kv: an ipc:// endpoint has no data-parallel rank 1");
  }

  @Test
  void shouldNameTheKeyOfEveryBadSetting() {
    assertThatThrownBy(() -> KvBridgeConfig.defaults(Map.of()))
        .hasMessage(
            "PREFIXLOG_KV_ENDPOINTS is required (comma-separated tcp://host:port endpoints)");
    assertThatThrownBy(
            () -> KvBridgeConfig.defaults(Map.of("PREFIXLOG_KV_ENDPOINTS", "tcp://*:5557")))
        .hasMessage(
            "PREFIXLOG_KV_ENDPOINTS=tcp://*:5557: expected tcp://host:port with a host to connect to");
    assertThatThrownBy(() -> KvBridgeConfig.defaults(Map.of("PREFIXLOG_KV_ENDPOINTS", "udp://h:1")))
        .hasMessage(
            "PREFIXLOG_KV_ENDPOINTS=udp://h:1: expected tcp://host:port, ipc://path or inproc://name");
    assertThatThrownBy(
            () ->
                KvBridgeConfig.defaults(
                    Map.of(
                        "PREFIXLOG_KV_ENDPOINTS", "tcp://a:1,tcp://b:1",
                        "PREFIXLOG_KV_REPLAY_ENDPOINTS", "tcp://a:2")))
        .hasMessage(
            "PREFIXLOG_KV_REPLAY_ENDPOINTS has 1 entries for 2 PREFIXLOG_KV_ENDPOINTS:"
                + " give one per endpoint, '-' for none");
    assertThatThrownBy(
            () ->
                KvBridgeConfig.defaults(
                    Map.of(
                        "PREFIXLOG_KV_ENDPOINTS", "tcp://a:65535", "PREFIXLOG_KV_DP_RANKS", "0-1")))
        .hasMessage(
            "PREFIXLOG_KV_ENDPOINTS=tcp://a:65535: port + data-parallel rank 1 is beyond 65535");
    assertThatThrownBy(
            () ->
                KvBridgeConfig.defaults(
                    Map.of("PREFIXLOG_KV_ENDPOINTS", "tcp://a:1", "PREFIXLOG_KV_DP_RANKS", "3-1")))
        .hasMessage("PREFIXLOG_KV_DP_RANKS=3-1: the range 3-1 is empty");
    assertThatThrownBy(
            () ->
                KvBridgeConfig.defaults(
                    Map.of("PREFIXLOG_KV_ENDPOINTS", "tcp://a:1", "PREFIXLOG_KV_DP_RANKS", "one")))
        .hasMessage("PREFIXLOG_KV_DP_RANKS=one: expected ranks and ranges such as 0-3 or 0,2,5");
    assertThatThrownBy(
            () ->
                KvBridgeConfig.defaults(
                    Map.of(
                        "PREFIXLOG_KV_ENDPOINTS", "tcp://a:1", "PREFIXLOG_KV_REPLAY_TIMEOUT", "0")))
        .hasMessage("PREFIXLOG_KV_REPLAY_TIMEOUT=0: expected a duration above zero, such as 100ms");
  }
}
