package io.prefixlog.streams.admin;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The start-up checks' questions to the broker: which of the app's topics exist, and the settings
 * of those and of the brokers, each answer awaited at most the check's timeout.
 */
final class DescribedConfigs {
  private DescribedConfigs() {}

  /** The topics among {@code names} that exist, as resources to describe, in the order given. */
  static List<ConfigResource> existingTopics(Admin admin, List<String> names, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    Set<String> existing = admin.listTopics().names().get(timeoutMs, TimeUnit.MILLISECONDS);
    List<ConfigResource> resources = new ArrayList<>();
    for (String name : names) {
      if (existing.contains(name)) {
        resources.add(new ConfigResource(ConfigResource.Type.TOPIC, name));
      }
    }
    return resources;
  }

  /** The settings of each of {@code resources}. */
  static Map<ConfigResource, Config> describe(
      Admin admin, List<ConfigResource> resources, long timeoutMs)
      throws InterruptedException, ExecutionException, TimeoutException {
    return admin.describeConfigs(resources).all().get(timeoutMs, TimeUnit.MILLISECONDS);
  }
}
