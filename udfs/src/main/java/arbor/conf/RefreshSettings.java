package arbor.conf;

import java.io.Serializable;
import java.util.List;

/**
 * The scheduled {@code refresh}.
 *
 * @param papers where new papers arrive (files or folders, any Hadoop URI)
 * @param seedFraction the share of a refresh's new papers that seed a new group
 */
public record RefreshSettings(List<String> papers, double seedFraction) implements Serializable {}
