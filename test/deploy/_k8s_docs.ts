/**
 * The Kubernetes manifests of deploy/k8s/, read as the cluster would: every
 * YAML document of every kustomization's `resources`, and the ConfigMaps its
 * `configMapGenerator` makes (the small part of kustomize these folders use).
 *
 * @module
 */
import { load, loadAll } from "js-yaml";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export const ROOT = new URL("../../", import.meta.url).pathname;
export const K8S = join(ROOT, "deploy/k8s");

/** A Kubernetes object read from a file. */
export interface K8sDoc {
  /** Where it came from, relative to the repository. */
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: unknown;
  data?: Record<string, string>;
}

interface Kustomization {
  resources?: string[];
  configMapGenerator?: { name: string; files?: string[]; literals?: string[] }[];
  generatorOptions?: { disableNameSuffixHash?: boolean };
}

/** The kustomization folders under deploy/k8s/. */
export function kustomizations(): string[] {
  return readdirSync(K8S).map((d) => join(K8S, d)).filter((d) => existsSync(join(d, "kustomization.yaml"))).sort();
}

/** A kustomization file, parsed. */
export function readKustomization(dir: string): Kustomization {
  return load(readFileSync(join(dir, "kustomization.yaml"), "utf8")) as Kustomization;
}

/** Every object a kustomization folder makes: its resources' documents (folders followed) and its ConfigMaps. */
export function objectsOf(dir: string): K8sDoc[] {
  const k = readKustomization(dir);
  const out: K8sDoc[] = [];
  for (const r of k.resources ?? []) {
    const path = join(dir, r);
    if (!existsSync(path)) throw new Error(`${relative(ROOT, dir)}/kustomization.yaml: resource ${r} does not exist`);
    if (statSync(path).isDirectory()) out.push(...objectsOf(path));
    else out.push(...docsOf(path));
  }
  for (const g of k.configMapGenerator ?? []) {
    const data: Record<string, string> = {};
    for (const f of g.files ?? []) {
      const [key, file] = f.includes("=") ? f.split("=", 2) as [string, string] : [f.split("/").at(-1)!, f];
      data[key] = readFileSync(join(dir, file), "utf8");
    }
    for (const l of g.literals ?? []) {
      const at = l.indexOf("=");
      data[l.slice(0, at)] = l.slice(at + 1);
    }
    out.push({
      file: `${relative(ROOT, dir)}/kustomization.yaml`,
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: g.name },
      data,
    });
  }
  return out;
}

/** Every YAML document of a file. */
export function docsOf(path: string): K8sDoc[] {
  return loadAll(readFileSync(path, "utf8")).map((d) => ({ ...(d as K8sDoc), file: relative(ROOT, path) }));
}
