/**
 * Text as Arbor compares and names it: the normalised form in which evidence is matched against
 * papers and answers (the judge, the dataset's checks, the viewer), and the content hashes that
 * identify papers, queries and model folders. It imports nothing of Arbor, so every feature may use it.
 */
package arbor.text;
