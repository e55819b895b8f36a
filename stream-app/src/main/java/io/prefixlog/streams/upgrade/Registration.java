package io.prefixlog.streams.upgrade;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;

/**
 * What a running instance records under its client id on {@code <application id>-topology}: its
 * topology and the format generations it reads and writes. Another build reads it, so fields are
 * only ever added (unknown fields are ignored on read).
 *
 * @param instance the instance's Kafka client id, the prefix of its group members' client ids
 * @param fingerprint {@link TopologyFingerprint#fingerprint()}
 * @param names {@link TopologyFingerprint#names()}
 * @param readsGeneration the newest format generation the instance reads (it reads every older one
 *     its build lists)
 * @param writesGeneration the format generation it writes
 * @param registeredMs when it registered (wall clock)
 */
record Registration(
    @JsonProperty("instance") String instance,
    @JsonProperty("topology_fingerprint") String fingerprint,
    @JsonProperty("topology_names") List<String> names,
    @JsonProperty("reads_generation") int readsGeneration,
    @JsonProperty("writes_generation") int writesGeneration,
    @JsonProperty("registered_ms") long registeredMs) {
  Registration {
    Objects.requireNonNull(instance, "instance");
    Objects.requireNonNull(fingerprint, "fingerprint");
    names = names == null ? List.of() : List.copyOf(names);
  }
}
