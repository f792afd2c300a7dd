package arbor.conf;

/**
 * Which strategy prompt a node is given: the full one (about 1,500 tokens), the reduced one
 * (about 200: task and built-ins), or the toy one (about 60, for from-scratch students with
 * {@code rlm.bind_question}: every prompt token is paid for in each of the many SFT passes).
 */
public enum PromptStrategy { FULL, REDUCED, TOY }
