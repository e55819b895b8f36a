package io.prefixlog.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

class StoreTagKeysTest {
  private static final String NAME = "kafka.stream.state.memtable.flush.time.avg";

  @Test
  void shouldExportTheRocksDbMetersOfWindowAndKeyValueStoresAlike() {
    // Given: a registry without the filters, as the app had it
    PrometheusMeterRegistry plain = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    PrometheusMeterRegistry filtered = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    StoreTagKeys.filters().forEach(filter -> filtered.config().meterFilter(filter));

    // When: a window store's meter registers first, then a key-value store's, as Kafka Streams
    // tags them
    for (PrometheusMeterRegistry registry : new PrometheusMeterRegistry[] {plain, filtered}) {
      Gauge.builder(NAME, () -> 1.0)
          .tags(Tags.of("rocksdb.window.state.id", "session-request-ids"))
          .register(registry);
      Gauge.builder(NAME, () -> 2.0)
          .tags(Tags.of("rocksdb.state.id", "kv-source-stats"))
          .register(registry);
    }

    // Then: without the filters Prometheus drops the second store's meter; with them both are there
    assertThat(plain.scrape()).contains("session-request-ids").doesNotContain("kv-source-stats");
    assertThat(filtered.scrape())
        .contains("rocksdb_state_id=\"session-request-ids\"")
        .contains("rocksdb_state_id=\"kv-source-stats\"");
  }
}
