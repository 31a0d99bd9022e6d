#version 450
// A helper whose `while (true) { if (subgroupElect()) return; }` lets one invocation out per
// iteration, before a second subgroupElect() in the caller. All invocations are back together
// when the helper returns, so exactly invocation 0 is elected: result = 1, 0, 0, 0.
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Result { uint data[4]; } result;

void wait_turn() {
  while (true) {
    if (subgroupElect()) {
      return;
    }
  }
}

void main() {
  uint lane = gl_SubgroupInvocationID;
  wait_turn();
  result.data[lane] = subgroupElect() ? 1u : 0u;
}
