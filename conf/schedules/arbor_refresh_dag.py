"""Airflow DAG: the nightly Arbor dataset refresh as a Spark submit task.

Copy into the DAGs folder. Needs the apache-airflow-providers-apache-spark package and a Spark
connection (``spark_default``) pointing at the cluster. The jar is built with
``mvn -Pcluster -DskipTests package`` and copied to ARBOR_JAR; the JVM flags are the contents
of jobs/target/classes/arbor-jvm.options (docs/operations.md).
"""

from datetime import datetime, timedelta

from airflow import DAG
from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

ARBOR_JAR = "/opt/arbor/arbor-jobs.jar"
JVM_OPTIONS = open("/opt/arbor/arbor-jvm.options").read().strip()

with DAG(
    dag_id="arbor_refresh",
    description="Ingest new papers, group them, synthesize their queries (incremental, idempotent)",
    schedule="30 2 * * *",
    start_date=datetime(2026, 12, 1),
    catchup=False,
    # Refresh runs never overlap: each reads what the previous one wrote.
    max_active_runs=1,
    default_args={"retries": 2, "retry_delay": timedelta(minutes=15)},
) as dag:
    SparkSubmitOperator(
        task_id="refresh",
        conn_id="spark_default",
        application=ARBOR_JAR,
        java_class="arbor.jobs.Main",
        packages="io.delta:delta-spark_4.2_2.13:4.4.0",
        conf={
            "spark.driver.extraJavaOptions": JVM_OPTIONS,
            "spark.executor.extraJavaOptions": JVM_OPTIONS,
        },
        # The API key of an llm generator comes from the environment, never from the DAG.
        env_vars={"ARBOR_WAREHOUSE": "s3a://my-bucket/arbor"},
        application_args=["refresh", "--conf", "cluster", "--papers", "s3a://my-bucket/incoming-papers/"],
        execution_timeout=timedelta(hours=4),
    )
