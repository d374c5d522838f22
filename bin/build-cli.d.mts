/** Types of bin/build-cli.mjs for scripts/bundle.ts. */
export declare const CLI_BUNDLE: string;
export declare function buildCli(root: string): Promise<string>;
