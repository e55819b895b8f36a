/** The lifecycle shared by prefixlog's long-running processes: settings, start, stop on SIGTERM. */
package io.prefixlog.core.service;
