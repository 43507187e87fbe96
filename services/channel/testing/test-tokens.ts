import { randomBytes } from "node:crypto";
import { Encryptor } from "@junction/platform";
import { ChannelTokens } from "../src/channel-tokens.ts";

/** Channel tokens sealed under a fresh random key, for tests that build the channel service by hand. */
export function testTokens(): ChannelTokens {
  return new ChannelTokens(new Encryptor(randomBytes(32)));
}
