package arbor.conf;

import java.io.Serializable;

/**
 * The {@code replay} policy.
 *
 * @param file JSON: node path -> that node's responses by turn, e.g.
 *     {@code {"root": ["..."], "root.0": ["..."]}}; "" = none configured
 */
public record ReplaySettings(String file) implements Serializable {}
