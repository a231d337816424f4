# Sourced by the bench scripts that run on the lent GPU host, which has no Node: unpacks the xz of the node
# binary the caller carried as .devtools/node.xz onto PATH, and sets the NCCL/NVSHMEM switches every process
# there must run with (NVLink multicast stays off).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p /tmp/headroom-node && xz -dc .devtools/node.xz > /tmp/headroom-node/node && chmod +x /tmp/headroom-node/node
export PATH=/tmp/headroom-node:$PATH
