/**
 * deploy/k8s/ as a cluster would take it: every object valid against the
 * Kubernetes API schemas (kubernetes-models, offline), no field the API does
 * not know (the package's TypeScript types, checked by `deno check`), and
 * the pieces agreeing with each other and with the CLIs they start.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Deployment, type IDeployment } from "kubernetes-models/apps/v1/Deployment";
import { type IJob, Job } from "kubernetes-models/batch/v1/Job";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { type IPod, Pod } from "kubernetes-models/v1/Pod";
import { type IService, Service } from "kubernetes-models/v1/Service";
import type { IIoK8sApiCoreV1Container } from "kubernetes-models/v1/Container";
import { parseCommand } from "../../lib/command.ts";
import { RUN_COMMAND } from "../../runner/cli/run_flags.ts";
import { loadPlan } from "../../runner/plans/load_plan.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { SIM_COMMAND } from "../../sim/cli.ts";
import { K8S, type K8sDoc, kustomizations, objectsOf, ROOT } from "./_k8s_docs.ts";

/** The model class of each kind the folders use, and the interface its objects are checked against. */
const MODELS = {
  "batch/v1 Job": { model: Job, type: "IJob", module: "kubernetes-models/batch/v1/Job" },
  "apps/v1 Deployment": { model: Deployment, type: "IDeployment", module: "kubernetes-models/apps/v1/Deployment" },
  "v1 Service": { model: Service, type: "IService", module: "kubernetes-models/v1/Service" },
  "v1 ConfigMap": { model: ConfigMap, type: "IConfigMap", module: "kubernetes-models/v1/ConfigMap" },
  "v1 Pod": { model: Pod, type: "IPod", module: "kubernetes-models/v1/Pod" },
  "v1 PersistentVolumeClaim": {
    model: PersistentVolumeClaim,
    type: "IPersistentVolumeClaim",
    module: "kubernetes-models/v1/PersistentVolumeClaim",
  },
} as const;
type KindKey = keyof typeof MODELS;

const folders = kustomizations();
const byFolder = new Map(folders.map((d) => [d.slice(K8S.length + 1), objectsOf(d)]));
const all: K8sDoc[] = [...new Map([...byFolder.values()].flat().map((d) => [`${d.kind}/${d.metadata.name}`, d]))
  .values()];
const key = (d: K8sDoc) => `${d.apiVersion} ${d.kind}` as KindKey;
const one = <T>(folder: string, kind: string): T & K8sDoc => {
  const found = byFolder.get(folder)!.filter((d) => d.kind === kind);
  assert.equal(found.length, 1, `${folder}: one ${kind}`);
  return found[0] as unknown as T & K8sDoc;
};
const container = (pod: { spec?: { containers: IIoK8sApiCoreV1Container[] } }, name: string) =>
  pod.spec!.containers.find((c) => c.name === name)!;

Deno.test("deploy/k8s has the runner (volume and object store), its configuration, a reader of the volume and the simulator", () => {
  assert.deepEqual([...byFolder.keys()], ["config", "results-reader", "runner", "runner-object-store", "sim"]);
  assert.deepEqual(
    all.map((d) => `${d.kind}/${d.metadata.name}`).sort(),
    [
      "ConfigMap/goodput-config",
      "Deployment/goodput-sim",
      "Job/goodput-runner",
      "PersistentVolumeClaim/goodput-results",
      "Pod/goodput-results-reader",
      "Service/goodput-sim",
    ],
  );
});

Deno.test("every object is valid against the Kubernetes API schema of its kind", () => {
  for (const docs of byFolder.values()) {
    for (const d of docs) {
      const m = MODELS[key(d)];
      assert.ok(m, `${d.file}: ${key(d)} is not a kind this test knows`);
      const { file: _, ...object } = d;
      const Model = m.model as unknown as new (data: unknown) => { validate(): void };
      assert.doesNotThrow(() => new Model(object).validate(), `${d.file}: ${d.kind} ${d.metadata.name}`);
    }
  }
});

Deno.test("every object names only fields its kind has: each is type-checked against the API's TypeScript types", async () => {
  // A field the schema does not know passes the schema check (it allows extra fields, as kubectl without strict
  // validation would); TypeScript's excess-property check over an object literal does not.
  // Inside the repository (out/ is ignored by git, fmt and lint), so that deno.json's import map applies.
  Deno.mkdirSync(join(ROOT, "out"), { recursive: true });
  const dir = Deno.makeTempDirSync({ dir: join(ROOT, "out"), prefix: "k8s-types-" });
  try {
    const imports = Object.values(MODELS).map((m) => `import type { ${m.type} } from "${m.module}";`);
    const checks = [...byFolder.values()].flat().map((d, i) => {
      const { file: _, ...object } = d;
      return `// ${d.file}\nexport const o${i}: ${MODELS[key(d)].type} = ${JSON.stringify(object, null, 2)};`;
    });
    const file = join(dir, "k8s_objects.ts");
    Deno.writeTextFileSync(file, [...imports, ...checks].join("\n") + "\n");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--config", join(ROOT, "deno.json"), file],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, text);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

/** `$(VAR)` references of a container's args, each replaced by a value of the kind it stands for. */
function expand(args: readonly string[], values: Record<string, string>): string[] {
  return args.map((a) =>
    a.replace(/\$\(([A-Z_]+)\)/g, (_, v: string) => {
      assert.ok(v in values, `$(${v}) has no sample value`);
      return values[v]!;
    })
  );
}

const SAMPLE = {
  JOB_COMPLETION_INDEX: "3",
  TARGET: "http://goodput-sim:8787",
  WORKERS_PER_POD: "2",
  START_AT: "2026-12-01T12:00:00Z",
  RUN_ID: "k8s-run",
};

for (const folder of ["runner", "runner-object-store"]) {
  Deno.test(`${folder}: an Indexed Job of N pods, each running shard $(JOB_COMPLETION_INDEX)/N from the one start time`, () => {
    const job = one<IJob>(folder, "Job");
    const spec = job.spec!;
    assert.equal(spec.completionMode, "Indexed");
    assert.equal(spec.backoffLimit, 0, "a shard retried would start late on a fresh clock");
    assert.equal(spec.parallelism, spec.completions, "every shard runs at once");
    const pod = spec.template.spec!;
    assert.equal(pod.restartPolicy, "Never");
    const runner = container(spec.template, "runner");
    const args = runner.args!;
    const at = (flag: string) => args[args.indexOf(flag) + 1];
    // The shard count is written twice: the Job's completions and the N of --shard i/N.
    assert.equal(at("--shard"), `$(JOB_COMPLETION_INDEX)/${spec.completions}`);
    const env = new Map(runner.env!.map((e) => [e.name, e]));
    assert.equal(
      env.get("JOB_COMPLETION_INDEX")!.valueFrom!.fieldRef!.fieldPath,
      "metadata.annotations['batch.kubernetes.io/job-completion-index']",
    );
    // Every $(VAR) of the args is a variable of the container, and each ConfigMap key it reads exists.
    for (const v of [...args.join(" ").matchAll(/\$\(([A-Z_]+)\)/g)].map((m) => m[1]!)) {
      assert.ok(env.has(v), `$(${v}) is not set in the runner's env`);
    }
    const config = all.find((d) => d.kind === "ConfigMap" && d.metadata.name === "goodput-config")!;
    for (const e of env.values()) {
      const ref = e.valueFrom?.configMapKeyRef;
      if (!ref) continue;
      if (ref.name === "goodput-config") assert.ok(ref.key in config.data!, `goodput-config has no key ${ref.key}`);
      // goodput-start is made for each run by the command docs/kubernetes.md gives.
      else assert.deepEqual([ref.name, ["start_at", "run_id"].includes(ref.key)], ["goodput-start", true]);
    }
    // The args are the run CLI's, every flag and value accepted (the variables set as the pod sets them).
    const parsed = parseCommand(RUN_COMMAND, expand(args, SAMPLE));
    assert.deepEqual(parsed.check.problems, []);
    assert.equal(parsed.values.shard, "3/4");
    // The files the args name are where the config volume puts them.
    const items = pod.volumes!.find((v) => v.name === "config")!.configMap!.items!.map((i) => `/config/${i.path}`);
    assert.ok(items.includes(`${parsed.values.workload}/workload.json`), String(items));
    assert.ok(items.includes(`${parsed.values.workload}/class_defaults.json`), String(items));
    assert.ok(items.includes(parsed.values.plan!), String(items));
    // The runner is given the cores its workers use, and no more than it requests.
    const cpu = runner.resources!.requests!.cpu;
    assert.equal(String(cpu), config.data!.workers_per_pod);
    assert.equal(String(runner.resources!.limits!.cpu), String(cpu));
  });
}

Deno.test("runner-object-store: the copy to object storage waits for the runner's end marker, which is always written", () => {
  const job = one<IJob>("runner-object-store", "Job");
  const runner = container(job.spec!.template, "runner");
  const upload = container(job.spec!.template, "upload");
  assert.deepEqual(runner.command!.slice(0, 2), ["sh", "-c"]);
  assert.match(runner.command![2]!, /runner\/cli\/run\.ts "\$@"; code=\$\?; touch \/results\/\.done; exit \$code$/);
  assert.match(upload.command![2]!, /^until \[ -f \/results\/\.done \]; do sleep 1; done; rclone copy /);
  const results = job.spec!.template.spec!.volumes!.find((v) => v.name === "results")!;
  assert.deepEqual(results.emptyDir, {});
});

Deno.test("config: the workload and the plan of the ConfigMap load, and the simulator knows every case", async () => {
  const dir = join(K8S, "config");
  const { workload } = await loadWorkload(join(dir, "workload"));
  const { workload: design } = await loadWorkload(join(ROOT, "data/workloads/design-v1"));
  // Two cases per class of design-v1, copied verbatim: the simulator (which answers design-v1) answers them.
  assert.equal(workload.cases.length, 12);
  for (const c of workload.cases) assert.deepEqual(c, design.cases.find((d) => d.case_id === c.case_id), c.case_id);
  const plan = await loadPlan(join(dir, "plan.json"));
  assert.equal(plan.spec.arrivals.process, "constant");
  // A ConfigMap holds at most 1 MiB.
  const config = all.find((d) => d.kind === "ConfigMap")!;
  const bytes = Object.values(config.data!).reduce((n, v) => n + new TextEncoder().encode(v).length, 0);
  assert.ok(bytes < 1024 * 1024, `${bytes} bytes`);
});

Deno.test("sim: the Service reaches the Deployment's pods on the port the runner's target names", () => {
  const dep = one<IDeployment>("sim", "Deployment");
  const svc = one<IService>("sim", "Service");
  const pod = dep.spec!.template;
  for (const [k, v] of Object.entries(svc.spec!.selector!)) assert.equal(pod.metadata!.labels![k], v);
  assert.deepEqual(dep.spec!.selector.matchLabels, svc.spec!.selector);
  const sim = container(pod, "sim");
  const port = sim.ports!.find((p) => p.name === svc.spec!.ports![0]!.targetPort)!;
  const parsed = parseCommand(SIM_COMMAND, sim.args!);
  assert.deepEqual(parsed.check.problems, []);
  assert.equal(parsed.values.port, port.containerPort);
  assert.deepEqual([parsed.values.host, parsed.values.expose], ["0.0.0.0", true]);
  const target = new URL(all.find((d) => d.kind === "ConfigMap")!.data!.target!);
  assert.deepEqual([target.hostname, Number(target.port)], [svc.metadata!.name, svc.spec!.ports![0]!.port]);
});

Deno.test("results-reader mounts, read-only, the volume the runner's Job writes", () => {
  const reader = one<IPod>("results-reader", "Pod");
  const job = one<IJob>("runner", "Job");
  const claim = (vs: { name: string; persistentVolumeClaim?: { claimName: string } }[] | undefined) =>
    vs!.find((v) => v.name === "results")!.persistentVolumeClaim!.claimName;
  assert.equal(claim(reader.spec!.volumes), claim(job.spec!.template.spec!.volumes));
  assert.equal(reader.spec!.volumes![0]!.persistentVolumeClaim!.readOnly, true);
  assert.equal(container(reader, "reader").volumeMounts![0]!.mountPath, "/results");
});

Deno.test("the image installs the pinned Deno and leaves this clone's node_modules out", () => {
  const dockerfile = Deno.readTextFileSync(join(ROOT, "deploy/Dockerfile"));
  assert.match(dockerfile, /^COPY package\.json package-lock\.json \.\/\nRUN npm ci /m);
  const ignored = Deno.readTextFileSync(join(ROOT, "deploy/Dockerfile.dockerignore")).split("\n");
  assert.ok(ignored.includes("node_modules"));
  // Every container runs the Deno npm installed, at the image's working folder.
  for (const d of all.filter((x) => x.kind === "Job" || x.kind === "Deployment")) {
    const pod = (d as unknown as IJob | IDeployment).spec!.template;
    for (const c of pod.spec!.containers.filter((c) => c.image?.startsWith("goodput-toolkit:"))) {
      assert.equal(c.workingDir, "/app");
      assert.ok(c.command!.join(" ").includes("./node_modules/.bin/deno run"), `${d.file}: ${c.name}`);
    }
  }
});
