/**
 * What prefixlog's own HTTP services answer: {@link io.prefixlog.core.http.HostCheck} decides from
 * a request's {@code Host} and {@code Origin} headers, {@link io.prefixlog.core.http.HostFilter}
 * applies it to a JDK {@code HttpServer}.
 */
package io.prefixlog.core.http;
