package arbor.conf;

/** What a node does when its last turn ends without an answer: stop, or ask once for the answer. */
public enum OnMaxTurns { STOP, ASK }
