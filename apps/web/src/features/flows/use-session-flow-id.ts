import { useParams, useSearchParams } from 'react-router';

/**
 * The id of the flow the page shows, or null when there is none or the flow was opened through a share link: the
 * flow page's own tools (test run, versions) need a session.
 */
export function useSessionFlowId(): number | null {
  const { id } = useParams();
  const [searchParams] = useSearchParams();
  const flowId = Number(id);
  if (!Number.isInteger(flowId) || flowId <= 0 || searchParams.get('flow-read-auth') !== null) return null;
  return flowId;
}
