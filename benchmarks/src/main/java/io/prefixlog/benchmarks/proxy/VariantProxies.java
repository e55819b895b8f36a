package io.prefixlog.benchmarks.proxy;

import io.prefixlog.embedded.KafkaBroker;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The warm rounds' variant proxies: one long-lived proxy per {@code --variants} entry, target
 * {@code prefixlog-<name>}, each publishing to a topic of its own. Closing stops them all.
 */
final class VariantProxies implements AutoCloseable {
  private final Map<String, PrefixlogProxy> proxies;

  private VariantProxies(Map<String, PrefixlogProxy> proxies) {
    this.proxies = Collections.unmodifiableMap(proxies);
  }

  static VariantProxies start(
      List<ColdStart.Variant> variants, Path dir, String upstream, KafkaBroker broker)
      throws IOException, InterruptedException {
    Map<String, PrefixlogProxy> started = new LinkedHashMap<>();
    try {
      for (ColdStart.Variant variant : variants) {
        String name = "prefixlog-" + variant.name();
        started.put(
            name,
            PrefixlogProxy.start(
                dir.resolve(name),
                upstream,
                broker,
                PrefixlogProxy.TOPIC_PREFIX + variant.name() + ".",
                true,
                variant.flags()));
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      new VariantProxies(started).close();
      throw e;
    }
    return new VariantProxies(started);
  }

  void forEach(BiConsumer<String, PrefixlogProxy> action) {
    proxies.forEach(action);
  }

  Set<Map.Entry<String, PrefixlogProxy>> entrySet() {
    return proxies.entrySet();
  }

  @Override
  public void close() {
    proxies.values().forEach(PrefixlogProxy::close);
  }
}
