package io.prefixlog.tools.erase;

import io.prefixlog.cli.Progress;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;

/**
 * {@code erase --check}: every record on the broker that still names a selected session — its key
 * is the session key or starts with {@code session_key/}, or its value holds a session key or one
 * of the raw ids — in every topic of the deployment (names starting with the topic prefix or the
 * application id: outputs, inputs, the stream app's changelogs and repartition topic). Tombstones
 * do not count. A record counted here can still be read by anyone reading that topic from the
 * start: an erased value stays until the broker compacts its segment (or retention drops it). The
 * acknowledgements on {@code erasures} name the session keys by design (an audit trail, no content)
 * and are not counted.
 */
final class Leftovers {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private Leftovers() {}

  /** Records naming a selected session, by topic (topics with none left out). */
  static Map<String, Long> find(
      Admin admin,
      String bootstrap,
      String topicPrefix,
      String applicationId,
      Selection selection,
      String auditTopic,
      java.util.function.Function<String, Progress> progress)
      throws TopicScan.ScanException,
          IOException,
          InterruptedException,
          ExecutionException,
          TimeoutException {
    Set<String> names = admin.listTopics().names().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    SessionMatch match = new SessionMatch(selection);
    Map<String, Long> found = new TreeMap<>();
    for (String topic : new java.util.TreeSet<>(names)) {
      if (!topic.startsWith(topicPrefix) && !topic.startsWith(applicationId + "-")) {
        continue;
      }
      if (topic.equals(auditTopic)) {
        continue; // the acknowledgements: session keys only, the record of what was erased
      }
      long[] count = {0};
      try (Progress bar = progress.apply(topic)) {
        TopicScan.readToEnd(
            bootstrap,
            topic,
            "prefixlog-erase-check",
            64 << 20,
            "no alternative: the check reads the broker",
            bar,
            record -> {
              if (match.names(record)) {
                count[0]++;
              }
            });
      }
      if (count[0] > 0) {
        found.put(topic, count[0]);
      }
    }
    return found;
  }
}
