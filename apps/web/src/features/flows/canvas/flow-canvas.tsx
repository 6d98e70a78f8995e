import '@xyflow/react/dist/style.css';
import {
  Background,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  applyNodeChanges,
  type Connection,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import { useEffect, useMemo, useState } from 'react';
import type { EditorLink, EditorStep } from '../use-flow-editor.ts';
import { LinkEdge, type LinkEdgeType } from './link-edge.tsx';
import { StepNode, type StepNodeType } from './step-node.tsx';
import { useIsNarrow } from '../../../lib/use-is-narrow.ts';

const nodeTypes = { step: StepNode };
const edgeTypes = { link: LinkEdge };

interface FlowCanvasProps {
  steps: EditorStep[];
  links: EditorLink[];
  selectedKey: string | null;
  isReadOnly: boolean;
  onSelect: (key: string | null) => void;
  onMove: (key: string, position: { x: number; y: number }) => void;
  onConnect: (source: string, target: string, condition: string | null) => void;
  onDeleteLinks: (keys: string[]) => void;
}

/**
 * The canvas (@xyflow/react): steps as nodes, links as edges. Dragging from a step's handle (a filter's yes / no,
 * an A/B test's variants) to another step draws a link; a selected link goes with the Delete key or its button;
 * a moved step keeps its place. Nodes keep React Flow's own measurements between renders.
 */
export function FlowCanvas({
  steps,
  links,
  selectedKey,
  isReadOnly,
  onSelect,
  onMove,
  onConnect,
  onDeleteLinks,
}: FlowCanvasProps) {
  const [nodes, setNodes] = useState<StepNodeType[]>([]);
  // On a phone the overview would cover the steps themselves.
  const isNarrow = useIsNarrow('tablet');
  const [selectedLinks, setSelectedLinks] = useState<Set<string>>(new Set());

  useEffect(() => {
    setNodes((current) => {
      const byId = new Map(current.map((node) => [node.id, node]));
      return steps.map((step) => {
        const earlier = byId.get(step.key);
        return {
          ...earlier,
          id: step.key,
          type: 'step' as const,
          position: earlier?.dragging ? earlier.position : step.coordinates,
          data: { step },
          selected: step.key === selectedKey,
          deletable: false,
          draggable: !isReadOnly,
        };
      });
    });
  }, [steps, selectedKey, isReadOnly]);

  const edges = useMemo<LinkEdgeType[]>(
    () =>
      links.map((link) => ({
        id: link.key,
        type: 'link' as const,
        source: link.source,
        target: link.target,
        sourceHandle: link.condition,
        data: { condition: link.condition },
        selected: selectedLinks.has(link.key),
        deletable: !isReadOnly,
        markerEnd: { type: MarkerType.ArrowClosed, width: 18, height: 18 },
      })),
    [links, selectedLinks, isReadOnly],
  );

  const onNodesChange = (changes: NodeChange<StepNodeType>[]) => {
    setNodes((current) => applyNodeChanges(changes, current));
    for (const change of changes) if (change.type === 'select' && change.selected) onSelect(change.id);
  };

  const onEdgesChange = (changes: EdgeChange<LinkEdgeType>[]) => {
    const removed = changes.flatMap((change) => (change.type === 'remove' ? [change.id] : []));
    if (removed.length) onDeleteLinks(removed);
    setSelectedLinks((current) => {
      const next = new Set(current);
      for (const change of changes) {
        if (change.type === 'select') {
          if (change.selected) next.add(change.id);
          else next.delete(change.id);
        } else if (change.type === 'remove') next.delete(change.id);
      }
      return next;
    });
  };

  const isValidConnection = (connection: Connection | LinkEdgeType) => {
    if (connection.source === connection.target) return false;
    const target = steps.find((step) => step.key === connection.target);
    return target !== undefined && target.type !== 'trigger';
  };

  return (
    <ReactFlow<StepNodeType, LinkEdgeType>
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      edgeTypes={edgeTypes}
      onNodesChange={onNodesChange}
      onEdgesChange={onEdgesChange}
      onNodeDragStop={(_event, node) => onMove(node.id, node.position)}
      onConnect={(connection) =>
        onConnect(connection.source, connection.target, connection.sourceHandle ?? null)
      }
      isValidConnection={isValidConnection}
      onPaneClick={() => onSelect(null)}
      nodesConnectable={!isReadOnly}
      nodesDraggable={!isReadOnly}
      deleteKeyCode={isReadOnly ? null : ['Delete', 'Backspace']}
      fitView
      fitViewOptions={{ maxZoom: 1, padding: 0.2 }}
      minZoom={0.25}
      maxZoom={1.5}
      aria-label="Flow canvas"
    >
      <Background gap={20} color="var(--mantine-color-gray-4)" />
      <Controls showInteractive={false} />
      {!isNarrow && (
        <MiniMap<StepNodeType>
          pannable
          zoomable
          ariaLabel="Flow overview"
          nodeColor={(node) =>
            `var(--mantine-color-${node.data.step.type === 'trigger' ? 'grape' : node.data.step.type === 'filter' ? 'orange' : 'indigo'}-4)`
          }
        />
      )}
    </ReactFlow>
  );
}
