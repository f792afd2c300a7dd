package arbor.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.apache.spark.sql.functions.min;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import arbor.jobs.cli.JobContext;
import arbor.jobs.view.ViewJob;
import arbor.jobs.view.ViewPaths;
import arbor.tables.Cols;
import arbor.pipelines.warehouse.Table;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The rollout viewer over a real training run and its evaluations (the train fixture's
 * uninterrupted run), opened in headless Chromium: the index leads to a step, the step's table
 * filters, a query's page shows its trees, and a click opens what was folded.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ViewerEndToEndTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  private TrainFixture.Straight run;
  private WebDriver browser;

  @BeforeAll
  void start() throws Exception {
    boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    // CI installs the browser (.ci/run); a developer's machine without it skips, and says why.
    if (System.getenv("ARBOR_REQUIRE_BROWSER") != null && !installed) {
      throw new AssertionError("ARBOR_REQUIRE_BROWSER is set but " + CHROMIUM + " or " + CHROMEDRIVER
          + " is missing: apt-get install chromium chromium-driver");
    }
    assumeTrue(installed, "no " + CHROMIUM + " / " + CHROMEDRIVER + " (apt-get install chromium chromium-driver)");
    run = TrainFixture.straight();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1400,1000",
        "--user-data-dir=" + Files.createTempDirectory("arbor-chromium"));
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
    browser = new ChromeDriver(service, options);
  }

  @AfterAll
  void stop() {
    if (browser != null) browser.quit();
  }

  private String view(String runId, Path out) throws Exception {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    try (JobContext context = new JobContext("view", run.config(), List.of("--run", runId, "--out", out.toString()),
        new PrintStream(console, true, StandardCharsets.UTF_8))) {
      assertEquals(0, new ViewJob().run(context));
    }
    return console.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aPersonFindsATreeFromTheIndexFiltersAStepAndOpensATurn() throws Exception {
    Path site = TestEnv.WORK.resolve("viewer/train");
    arbor.jobs.cli.FileTrees.delete(site);
    String console = view(TrainFixture.RUN, site);
    assertTrue(console.contains("view: open "), console);
    long first = run.warehouse().read(Table.ROLLOUT_NODES).where("run_id = 'r'").agg(min(Cols.STEP)).first().getLong(0);
    long trees = run.warehouse().read(Table.ROLLOUT_NODES).where("run_id = 'r' AND parent_id IS NULL AND step = " + first).count();

    browser.get(site.resolve("index.html").toUri().toString());
    browser.findElement(By.linkText(String.valueOf(first))).click();
    assertTrue(browser.getTitle().startsWith("Step " + first + " of r"), browser.getTitle());
    List<WebElement> rows = browser.findElements(By.cssSelector("#trees tbody tr"));
    assertEquals(trees, rows.size());
    WebElement shown = browser.findElement(By.id("f-shown"));
    assertEquals(trees + " of " + trees + " trees shown", shown.getText());
    // No reward reaches 5: a range from 5 hides every tree; clearing it shows them again.
    browser.findElement(By.id("f-min")).sendKeys("5");
    assertEquals("0 of " + trees + " trees shown", shown.getText());
    assertTrue(rows.stream().noneMatch(WebElement::isDisplayed));
    browser.findElement(By.id("f-min")).clear();
    browser.findElement(By.id("f-min")).sendKeys("-1");
    assertEquals(trees + " of " + trees + " trees shown", shown.getText());

    // The second row's sample link leads to that tree on its query's page.
    WebElement sampleLink = rows.get(1).findElements(By.tagName("td")).get(3).findElement(By.tagName("a"));
    String sample = sampleLink.getText();
    sampleLink.click();
    assertTrue(browser.getCurrentUrl().endsWith("#tree-" + sample), browser.getCurrentUrl());
    WebElement tree = browser.findElement(By.id("tree-" + sample));
    assertTrue(tree.findElement(By.cssSelector(".diagram svg")).isDisplayed(), "the tree is drawn");
    assertTrue(tree.getText().contains("Ground truth"), tree.getText());
    // A folded part opens on a click: the last message the root was given before its first turn.
    WebElement given = tree.findElement(By.cssSelector("details.given"));
    WebElement message = given.findElement(By.tagName("pre"));
    assertFalse(message.isDisplayed());
    given.findElement(By.tagName("summary")).click();
    assertTrue(message.isDisplayed());
    assertFalse(message.getText().isBlank());
    Files.write(TestEnv.WORK.resolve("viewer/tree.png"), ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES));
  }

  @Test
  void anEvalRunSetsTheSameQuerysTreesOfTwoCheckpointsSideBySide() throws Exception {
    String evalRun = TrainFixture.RUN + "-eval-djl-validation";
    List<Long> steps = run.warehouse().read(Table.ROLLOUT_NODES).where("run_id = '" + evalRun + "'").select(Cols.STEP)
        .distinct().orderBy(Cols.STEP).collectAsList().stream().map(r -> r.getLong(0)).toList();
    assertEquals(List.of(0L, 2L), steps, "the fixture evaluates before step 1 and after step 2");
    Path site = TestEnv.WORK.resolve("viewer/eval");
    arbor.jobs.cli.FileTrees.delete(site);
    view(evalRun, site);

    browser.get(site.resolve("index.html").toUri().toString());
    browser.findElement(By.linkText("v1")).click();
    assertEquals("Query v1 across steps", browser.getTitle());
    List<WebElement> columns = browser.findElements(By.cssSelector(".columns > div"));
    assertEquals(2, columns.size());
    assertTrue(columns.get(0).getText().startsWith("step 0") && columns.get(1).getText().startsWith("step 2"));
    columns.get(1).findElement(By.linkText("sample 0")).click();
    assertTrue(browser.getCurrentUrl().endsWith(ViewPaths.tree(2, "v1", 0)), browser.getCurrentUrl());
  }
}
