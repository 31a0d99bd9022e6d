#version 450
#pragma scheduler(HSA)
#extension GL_KHR_memory_scope_semantics : enable
layout(local_size_x = 1) in;
layout(tla_subgroup_size = 1) in;
layout(tla_num_workgroups = 2) in;

layout(std430, binding = 0) coherent buffer Flag {
    uint flag;
};

void main() {
    if (gl_WorkGroupID.x == 0) {
        // The oldest workgroup waits for the younger one: HSA guarantees only the oldest
        // progress, so the younger may never run.
        while (flag == 0) {
        }
        assert(flag == 1);
    } else {
        atomicExchange(flag, 1);
    }
}
